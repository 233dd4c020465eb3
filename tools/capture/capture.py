"""Run real GPU kernels on faultline kernel vectors and write their outputs into dump copies.

    python3 tools/capture/capture.py --in VECTORS_DIR --out OUT_DIR [--kernels K1,K2,...]
                                     [--only GLOB,GLOB] [--versions FILE]

For each kernel K and each input dump NAME.safetensors (all of them, or those matching --only),
writes OUT_DIR/K/NAME.safetensors (inputs unchanged, `output` added, metadata kernel /
kernel_version and the kernel's own notes set) and OUT_DIR/K/capture.json (timings, refusals,
versions). A kernel that is unavailable, or refuses a case, is recorded as such and the run goes
on. Then `faultline kernel verify OUT_DIR/K` checks the dumps on any machine. The kernels are
listed in KERNELS below and described in tools/capture/README.md.
"""
import argparse
import datetime
import fnmatch
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

from case import Case  # noqa: E402
from versions import versions  # noqa: E402


def _torch_kernel(c):
    from kernels_torch import paged_swa_attention
    return paged_swa_attention(c), {}


def _triton(planted):
    def run(c):
        from kernels_triton import paged_decode, planted_pairs
        out = paged_decode(c, plant_bug=planted)
        extra = {}
        if planted:
            pairs = planted_pairs(c.seq_lens_list, c.q_len, c.window_left, c.page, c.num_heads, c.num_kv_heads, c.q_fp8)
            extra["planted_pairs"] = json.dumps(pairs)
        return out, extra
    return run


def _flashinfer(c):
    import flashinfer
    ws = torch.zeros(128 * 1024 * 1024, dtype=torch.uint8, device=c.query.device)
    return flashinfer.decode.trtllm_batch_decode_with_kv_cache(
        query=c.query, kv_cache=c.kv_hnd, workspace_buffer=ws, block_tables=c.block_tables,
        seq_lens=c.seq_lens, max_seq_len=max(c.seq_lens_list), bmm1_scale=c.bmm1, bmm2_scale=c.bmm2,
        window_left=c.window_left, kv_layout="HND", q_len_per_req=c.q_len, out_dtype=torch.bfloat16), {}


def _flex(compiled):
    def run(c):
        from kernels_flex import paged_flex
        return paged_flex(c, compiled)
    return run


def _sdpa(name):
    def run(c):
        from kernels_sdpa import forced_sdpa
        return forced_sdpa(c, name)
    return run


def _native(which):
    def run(c):
        import kernels_native_window as k
        return (k.flash_window if which == "flash" else k.efficient_window)(c)
    return run


# name → (what wrote the output, as the dump's `kernel` metadata says it; the runner)
KERNELS = {
    "torch": ("pytorch paged sliding-window attention (tools/capture/kernels_torch.py)", _torch_kernel),
    "triton": ("triton paged decode (tools/capture/kernels_triton.py)", _triton(False)),
    "triton-planted": ("triton paged decode WITH PLANTED BUG (tools/capture/kernels_triton.py PLANT_BUG)", _triton(True)),
    "flashinfer": ("flashinfer trtllm_batch_decode_with_kv_cache", _flashinfer),
    "flex-paged": ("pytorch flex_attention, torch.compile, paged KV + sliding-window block mask (tools/capture/kernels_flex.py)", _flex(True)),
    "flex-paged-eager": ("pytorch flex_attention, eager (unfused), paged KV + sliding-window block mask (tools/capture/kernels_flex.py)", _flex(False)),
    "sdpa-flash": ("pytorch scaled_dot_product_attention, FLASH_ATTENTION forced, gathered pages (tools/capture/kernels_sdpa.py)", _sdpa("sdpa-flash")),
    "sdpa-efficient": ("pytorch scaled_dot_product_attention, EFFICIENT_ATTENTION forced, gathered pages (tools/capture/kernels_sdpa.py)", _sdpa("sdpa-efficient")),
    "sdpa-cudnn": ("pytorch scaled_dot_product_attention, CUDNN_ATTENTION forced, gathered pages (tools/capture/kernels_sdpa.py)", _sdpa("sdpa-cudnn")),
    "sdpa-math": ("pytorch scaled_dot_product_attention, MATH forced, gathered pages (tools/capture/kernels_sdpa.py)", _sdpa("sdpa-math")),
    "flash-varlen-window": ("pytorch aten._flash_attention_forward varlen with its sliding window (tools/capture/kernels_native_window.py)", _native("flash")),
    "efficient-varlen-window": ("pytorch aten._efficient_attention_forward varlen with its sliding window (tools/capture/kernels_native_window.py)", _native("efficient")),
}


def kernel_version(name, v):
    if name == "flashinfer":
        return f"flashinfer {v['flashinfer']}, {v['gpu']}"
    return f"torch {v['torch']}, triton {v['triton']}, cuda {v['cuda']}, cudnn {v['cudnn']}, {v['gpu']}"


def _sync(x):
    if x.is_cuda:
        torch.cuda.synchronize()


def timed(run, c):
    """Warm-up (compiles), then the timed call; returns (out, extra, seconds, warm-up seconds, repeatable)."""
    t0 = time.perf_counter()
    first, _ = run(c)
    _sync(first)
    t1 = time.perf_counter()
    out, extra = run(c)
    _sync(out)
    t2 = time.perf_counter()
    return out, extra, t2 - t1, t1 - t0, bool(torch.equal(first, out))


def capture_kernel(name, files, inp, out_dir, v, device):
    description, run = KERNELS[name]
    kdir = os.path.join(out_dir, name)
    os.makedirs(kdir, exist_ok=True)
    record = {"kernel": name, "description": description, "versions": v, "files": []}
    for f in files:
        c = Case(os.path.join(inp, f), device)
        try:
            out, extra, dt, warm, same = timed(run, c)
        except Exception as e:  # one refused case is recorded, the run goes on
            msg = f"{type(e).__name__}: {e}"
            print(f"{name} {f}: REFUSED {msg[:1500]}", flush=True)
            record["files"].append({"file": f, "error": msg})
            continue
        extra = dict(extra, repeat_bitwise_equal=str(same).lower())
        c.write(os.path.join(kdir, f), out, description, kernel_version(name, v), extra)
        record["files"].append({"file": f, "seconds": dt, "warmup_seconds": warm, "repeat_bitwise_equal": same,
                                "gflop": c.flops() / 1e9, "notes": extra})
        print(f"{name} {f}: ok {dt * 1e3:.2f} ms (warm-up {warm:.1f} s){'' if same else ' NOT REPEATABLE'}"
              f"{' — ' + extra['sdpa_formulation'] if 'sdpa_formulation' in extra else ''}", flush=True)
    with open(os.path.join(kdir, "capture.json"), "w") as fh:
        json.dump(record, fh, indent=1)
    ok = sum(1 for r in record["files"] if "error" not in r)
    print(f"{name}: wrote {ok}/{len(files)} dumps to {kdir}", flush=True)
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--in", dest="inp", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--kernels", default="torch,triton,triton-planted,flashinfer")
    ap.add_argument("--only", default="*", help="comma-separated glob patterns of the input file names to run")
    ap.add_argument("--versions", help="also write the versions (torch, triton, CUDA, cuDNN, GPU, driver) to this JSON file")
    ap.add_argument("--device", default="cuda")
    a = ap.parse_args()
    names = a.kernels.split(",")
    unknown = [k for k in names if k not in KERNELS]
    if unknown:
        raise SystemExit(f"unknown kernel(s) {', '.join(unknown)}; known: {', '.join(KERNELS)}")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    v = versions()
    v["captured_utc"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    print(json.dumps(v), flush=True)
    if a.versions:
        with open(a.versions, "w") as fh:
            json.dump(v, fh, indent=1)
    patterns = a.only.split(",")
    files = sorted(f for f in os.listdir(a.inp)
                   if f.endswith(".safetensors") and any(fnmatch.fnmatch(f, p) for p in patterns))
    for k in names:
        if k == "flashinfer" and v["flashinfer"].startswith("not importable"):
            print(f"flashinfer: skipped ({v['flashinfer']})", flush=True)
            continue
        capture_kernel(k, files, a.inp, a.out, v, a.device)


if __name__ == "__main__":
    main()
