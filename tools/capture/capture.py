"""Run real GPU kernels on faultline kernel vectors and write their outputs into dump copies.

    python3 tools/capture/capture.py --in VECTORS_DIR --out OUT_DIR [--kernels torch,triton,triton-planted,flashinfer]

For each kernel K and each input dump NAME.safetensors, writes OUT_DIR/K/NAME.safetensors (inputs
unchanged, `output` added, metadata kernel / kernel_version set) and OUT_DIR/K/capture.json (timings,
versions). Then `faultline kernel verify OUT_DIR/K` checks them on any machine.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

from case import Case  # noqa: E402


def versions():
    v = {"torch": torch.__version__, "cuda": torch.version.cuda, "gpu": torch.cuda.get_device_name(0)}
    try:
        import triton
        v["triton"] = triton.__version__
    except Exception as e:  # reported, not hidden
        v["triton"] = f"not importable: {e}"
    try:
        import flashinfer
        v["flashinfer"] = getattr(flashinfer, "__version__", "unknown")
    except Exception as e:
        v["flashinfer"] = f"not importable: {type(e).__name__}"
    return v


def run_kernel(name, c):
    if name == "torch":
        from kernels_torch import paged_swa_attention
        return paged_swa_attention(c), {}
    if name in ("triton", "triton-planted"):
        from kernels_triton import paged_decode, planted_pairs
        planted = name == "triton-planted"
        out = paged_decode(c, plant_bug=planted)
        extra = {}
        if planted:
            pairs = planted_pairs(c.seq_lens_list, c.q_len, c.window_left, c.page, c.num_heads, c.num_kv_heads, c.q_fp8)
            extra["planted_pairs"] = json.dumps(pairs)
        return out, extra
    if name == "flashinfer":
        return run_flashinfer(c), {}
    raise SystemExit(f"unknown kernel {name}")


def run_flashinfer(c):
    import flashinfer
    ws = torch.zeros(128 * 1024 * 1024, dtype=torch.uint8, device=c.query.device)
    return flashinfer.decode.trtllm_batch_decode_with_kv_cache(
        query=c.query, kv_cache=c.kv_hnd, workspace_buffer=ws, block_tables=c.block_tables,
        seq_lens=c.seq_lens, max_seq_len=max(c.seq_lens_list), bmm1_scale=c.bmm1, bmm2_scale=c.bmm2,
        window_left=c.window_left, kv_layout="HND", q_len_per_req=c.q_len, out_dtype=torch.bfloat16)


KERNEL_NAMES = {
    "torch": "pytorch paged sliding-window attention (tools/capture/kernels_torch.py)",
    "triton": "triton paged decode (tools/capture/kernels_triton.py)",
    "triton-planted": "triton paged decode WITH PLANTED BUG (tools/capture/kernels_triton.py PLANT_BUG)",
    "flashinfer": "flashinfer trtllm_batch_decode_with_kv_cache",
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--in", dest="inp", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--kernels", default="torch,triton,triton-planted,flashinfer")
    a = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    v = versions()
    print(json.dumps(v), flush=True)
    files = sorted(f for f in os.listdir(a.inp) if f.endswith(".safetensors"))
    for k in a.kernels.split(","):
        if k == "flashinfer" and v["flashinfer"].startswith("not importable"):
            print(f"flashinfer: skipped ({v['flashinfer']})", flush=True)
            continue
        kdir = os.path.join(a.out, k)
        os.makedirs(kdir, exist_ok=True)
        record = {"kernel": k, "versions": v, "files": []}
        version = f"torch {v['torch']}, triton {v['triton']}, {v['gpu']}"
        if k == "flashinfer":
            version = f"flashinfer {v['flashinfer']}, {v['gpu']}"
        for f in files:
            c = Case(os.path.join(a.inp, f), "cuda")
            try:
                run_kernel(k, c)  # warm-up / compile
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                out, extra = run_kernel(k, c)
                torch.cuda.synchronize()
                dt = time.perf_counter() - t0
            except Exception as e:  # one failing case is recorded, the run goes on
                print(f"{k} {f}: FAILED {type(e).__name__}: {e}", flush=True)
                record["files"].append({"file": f, "error": f"{type(e).__name__}: {e}"})
                continue
            c.write(os.path.join(kdir, f), out, KERNEL_NAMES[k], version, extra)
            record["files"].append({"file": f, "seconds": dt, "gflop": c.flops() / 1e9})
        with open(os.path.join(kdir, "capture.json"), "w") as fh:
            json.dump(record, fh, indent=1)
        ok = sum(1 for r in record["files"] if "error" not in r)
        print(f"{k}: wrote {ok}/{len(files)} dumps to {kdir}", flush=True)


if __name__ == "__main__":
    main()
