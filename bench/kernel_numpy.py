"""NumPy anchor for bench/kernel.ts: the same reference attention on the same dumps.

    /usr/bin/python3 bench/kernel_numpy.py DIR [REPEATS]

Prints one JSON object: seconds (best of REPEATS, reference recompute only, files already read),
gflop, and per dump the max |reference - output| (a cross-check of faultline's reference).
float64 throughout, vectorized per request over rows and heads (einsum), each row's own window.
Exit 3 with {"error": ...} when numpy is missing, so the caller can say so.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools", "capture"))

try:
    import numpy as np
except ImportError as e:
    print(json.dumps({"error": f"numpy is not importable: {e}"}))
    sys.exit(3)

import dumpio  # noqa: E402


def e4m3_table():
    t = np.zeros(256, dtype=np.float64)
    for c in range(256):
        s = -1.0 if c & 0x80 else 1.0
        e, m = (c >> 3) & 15, c & 7
        if e == 15 and m == 7:
            t[c] = np.nan
        elif e == 0:
            t[c] = s * m * 2.0 ** -9
        else:
            t[c] = s * (1 + m / 8) * 2.0 ** (e - 7)
    return t


E4M3 = e4m3_table()


def decode(t):
    if t.dtype == "F8_E4M3":
        return E4M3[np.frombuffer(t.data, dtype=np.uint8)].reshape(t.shape)
    if t.dtype == "BF16":
        bits = np.frombuffer(t.data, dtype=np.uint16).astype(np.uint32) << 16
        return bits.view(np.float32).astype(np.float64).reshape(t.shape)
    if t.dtype == "F32":
        return np.frombuffer(t.data, dtype=np.float32).astype(np.float64).reshape(t.shape)
    raise ValueError(t.dtype)


def load(path):
    t, m = dumpio.read(path)
    sc = {k: (t[f"{k}_scale"].values()[0] if f"{k}_scale" in t else 1.0) for k in "qkv"}
    fp8kv = m["kv_dtype"] == "fp8_e4m3"
    q = decode(t["query"]) * (sc["q"] if m["q_dtype"] == "fp8_e4m3" else 1.0)
    kv = decode(t["kv_cache"])
    if m.get("kv_layout", "HND") == "NHD":
        kv = kv.transpose(0, 1, 3, 2, 4)
    return dict(q=q, kv=kv, ks=sc["k"] if fp8kv else 1.0, vs=sc["v"] if fp8kv else 1.0,
                bt=np.array(t["block_tables"].values(), dtype=np.int64).reshape(t["block_tables"].shape),
                seq=t["seq_lens"].values(), ql=int(m["q_len_per_req"]), wl=int(m["window_left"]),
                sm=float(m["sm_scale"]), out=decode(t["output"]))


def reference(d):
    q, kv, ql, wl = d["q"], d["kv"], d["ql"], d["wl"]
    _, _, hkv, page, hd = kv.shape
    hq = q.shape[1]
    g = hq // hkv
    out = np.empty_like(q)
    for b, s in enumerate(d["seq"]):
        blocks = d["bt"][b, :(s + page - 1) // page]
        k = kv[blocks, 0].transpose(1, 0, 2, 3).reshape(hkv, -1, hd)[:, :s] * d["ks"]   # [Hkv, s, hd]
        v = kv[blocks, 1].transpose(1, 0, 2, 3).reshape(hkv, -1, hd)[:, :s] * d["vs"]
        qb = q[b * ql:(b + 1) * ql].reshape(ql, hkv, g, hd)
        logits = np.einsum("tkgd,ksd->tkgs", qb, k) * d["sm"]                           # [ql, Hkv, g, s]
        pos = s - ql + np.arange(ql)[:, None]
        j = np.arange(s)[None, :]
        vis = j <= pos
        if wl >= 0:
            vis &= j >= pos - wl
        logits = np.where(vis[:, None, None, :], logits, -np.inf)
        p = np.exp(logits - logits.max(axis=-1, keepdims=True))
        p /= p.sum(axis=-1, keepdims=True)
        out[b * ql:(b + 1) * ql] = np.einsum("tkgs,ksd->tkgd", p, v).reshape(ql, hq, hd)
    return out


def flops(d):
    n = 0
    for s in d["seq"]:
        for t in range(d["ql"]):
            p = s - d["ql"] + t
            lo = 0 if d["wl"] < 0 else max(0, p - d["wl"])
            n += p - lo + 1
    return 4 * d["q"].shape[1] * d["q"].shape[2] * n


def main():
    folder, repeats = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 3
    dumps = [load(os.path.join(folder, f)) for f in sorted(os.listdir(folder)) if f.endswith(".safetensors")]
    best, refs = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        refs = [reference(d) for d in dumps]
        best = min(best, time.perf_counter() - t0)
    errs = [float(np.max(np.abs(r - d["out"]))) for r, d in zip(refs, dumps)]
    print(json.dumps({"seconds": best, "gflop": sum(flops(d) for d in dumps) / 1e9, "maxAbsPerDump": errs,
                      "numpy": np.__version__}))


if __name__ == "__main__":
    main()
