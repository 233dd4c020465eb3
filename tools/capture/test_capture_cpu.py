"""CPU-side checks of the PyTorch attention capture:  python3 tools/capture/test_capture_cpu.py VECTORS_DIR

Needs torch (any build; runs on the CPU) and vectors from `faultline kernel vectors`. Each kernel
formulation that the CPU build has is run on a few cases and compared with kernels_torch.py (float32,
exact dequantization); the capture driver and pack.py run end to end into a temporary directory.
A formulation the CPU build lacks is reported as skipped, by name. Exit status 1 on any failure.
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402

import kernels_flex  # noqa: E402
import kernels_sdpa  # noqa: E402
import pack  # noqa: E402
from case import Case  # noqa: E402
from kernels_torch import paged_swa_attention  # noqa: E402

CASES = ["kvfp8_qbf16_w64_qlen08", "kvfp8_qbf16_w64_qlen01", "kvfp8_qbf16_wnone_qlen04", "kvfp8_qfp8_w64_qlen16"]
failures, skipped = [], []


def within(out, ref, atol, rtol):
    """The verify rule: |out − ref| ≤ atol + rtol·|ref| everywhere (NaN fails)."""
    err = (out.float() - ref.float()).abs()
    return bool((err <= atol + rtol * ref.float().abs()).all()), float(err.max())


def check(name, out, ref, c):
    atol = rtol = 2e-2 if c.q_len > 1 else 1e-2
    if c.q_fp8:
        atol, rtol = 2 * 7e-2, 2 * 4e-2
    ok, worst = within(out, ref, atol, rtol)
    print(f"{'ok  ' if ok else 'FAIL'} {name} {os.path.basename(c.path)} max |err| {worst:.4g}")
    if not ok:
        failures.append(f"{name} {c.path}")


def main(vec):
    for case in CASES:
        c = Case(os.path.join(vec, case + ".safetensors"), "cpu")
        ref = paged_swa_attention(c)
        out, notes = kernels_flex.paged_flex(c, compiled=False)
        check(f"flex eager ({notes['flex_call']})", out, ref, c)
        with torch.nn.attention.sdpa_kernel([torch.nn.attention.SDPBackend.MATH]):
            by_mask = kernels_sdpa.request_mask(c)
            by_rows = kernels_sdpa.row_windows(c)
        check("sdpa math request-mask", by_mask, ref, c)
        check("sdpa math row-window", by_rows, ref, c)
    # the compiled FlexAttention on one case (the CPU build compiles a C++ kernel, not Triton)
    c = Case(os.path.join(vec, CASES[0] + ".safetensors"), "cpu")
    try:
        out, notes = kernels_flex.paged_flex(c, compiled=True)
        check(f"flex compiled ({notes['flex_call']})", out, paged_swa_attention(c), c)
    except Exception as e:
        skipped.append(f"flex compiled on this CPU build: {type(e).__name__}: {e}")
    check_pack()
    check_driver(vec)
    for s in skipped:
        print(f"SKIPPED {s}")
    print(f"{len(failures)} failed" + (": " + "; ".join(failures) if failures else ""))
    return 1 if failures else 0


def check_pack():
    with tempfile.TemporaryDirectory() as d:
        for name, size in (("a", 600), ("b", 500), ("c", 900), ("huge", 3000)):
            os.makedirs(os.path.join(d, name))
            with open(os.path.join(d, name, "x"), "wb") as fh:
                fh.write(bytes(size))
        groups, left_out = pack.plan(d, 1200, 2)
        want = ([["a", "b"], ["c"]], ["huge"])
        got = (groups, [f for f, _ in left_out])
        print(f"{'ok  ' if got == want else 'FAIL'} pack.plan groups {groups}, left out {got[1]}")
        if got != want:
            failures.append("pack.plan")


def check_driver(vec):
    """capture.py end to end on the CPU: a refused backend is recorded and the run goes on."""
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run([sys.executable, os.path.join(HERE, "capture.py"), "--in", vec, "--out", d, "--device", "cpu",
                            "--kernels", "sdpa-math,efficient-varlen-window", "--only", "*_qbf16_w64_qlen01*",
                            "--versions", os.path.join(d, "versions.json")], capture_output=True, text=True)
        wrote = os.path.exists(os.path.join(d, "sdpa-math", "kvfp8_qbf16_w64_qlen01.safetensors"))
        refused = "efficient-varlen-window kvfp8_qbf16_w64_qlen01.safetensors: REFUSED" in r.stdout
        ok = r.returncode == 0 and wrote and refused and os.path.exists(os.path.join(d, "versions.json"))
        print(f"{'ok  ' if ok else 'FAIL'} capture.py on the CPU: exit {r.returncode}, wrote sdpa-math {wrote}, recorded a refusal {refused}")
        if not ok:
            failures.append("capture.py driver: " + r.stdout[-500:] + r.stderr[-500:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
