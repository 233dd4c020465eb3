#!/usr/bin/env python3
"""safetensors interop between faultline and Python (safetensors + torch).

(a) Loads every faultline-written file in test/fixtures/tensors/faultline/ with safetensors.torch
    (load_file and safe_open) and checks dtype, shape, raw bytes and decoded values against the
    <name>.expected.json written beside it by tools/interop/make-fixtures.ts, and the metadata.
(b) Writes files with torch + safetensors into OUT (packed as OUT/python_written.tar):
    - py-all-dtypes.safetensors: one tensor of every dtype faultline reads, built with torch;
      py-all-dtypes.expected.json: dtype, shape, raw bytes (hex) and torch's decoded values;
    - py-casts.safetensors: float32 inputs x (specials + random bit patterns) and torch's casts of
      them on CPU and CUDA to float8_e4m3fn, float8_e5m2, bfloat16 and float16;
    - sharded/: a state dict saved by huggingface_hub.save_torch_state_dict with small shards.
Writes OUT/report.json and exits 1 if any check in (a) failed.

Usage (repository root):  python3 tools/interop/check_safetensors.py OUT_DIR
"""
import json
import math
import os
import sys
import tarfile
import tempfile
import traceback

import torch
import safetensors
from safetensors import safe_open
from safetensors.torch import load_file, save_file

FIXTURES = os.path.join("test", "fixtures", "tensors", "faultline")
DTYPE_NAMES = {
    torch.float64: "F64", torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
    torch.float8_e4m3fn: "F8_E4M3", torch.float8_e5m2: "F8_E5M2", torch.int64: "I64", torch.int32: "I32",
    torch.int16: "I16", torch.int8: "I8", torch.uint64: "U64", torch.uint32: "U32", torch.uint16: "U16",
    torch.uint8: "U8", torch.bool: "BOOL",
}
FLOATS = {"F64", "F32", "F16", "BF16", "F8_E4M3", "F8_E5M2"}


def raw_hex(t):
    flat = t.contiguous().reshape(-1)
    if flat.numel() == 0:
        return ""
    return flat.view(torch.uint8).numpy().tobytes().hex()


def value_strings(t, name):
    flat = t.contiguous().reshape(-1)
    if name in FLOATS:
        out = []
        for v in flat.to(torch.float64).tolist():
            if math.isnan(v):
                out.append("nan")
            elif math.isinf(v):
                out.append("inf" if v > 0 else "-inf")
            elif v == 0 and math.copysign(1, v) < 0:
                out.append("-0")
            else:
                out.append(repr(v))
        return out
    if name == "BOOL":
        return [str(int(v)) for v in flat.tolist()]
    if name == "U64":  # few ops exist for uint64: reinterpret the bits as int64 and fix the sign
        return [str(v % (1 << 64)) for v in flat.view(torch.int64).tolist()]
    if name == "U32":
        return [str(v % (1 << 32)) for v in flat.view(torch.int32).tolist()]
    if name == "U16":
        return [str(v % (1 << 16)) for v in flat.view(torch.int16).tolist()]
    return [str(v) for v in flat.tolist()]


def same_value(a, b):
    if a == b:
        return True
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False
    if math.isnan(x) and math.isnan(y):
        return True
    return x == y and math.copysign(1, x) == math.copysign(1, y)


def check_faultline_files(report):
    files = sorted(f for f in os.listdir(FIXTURES) if f.endswith(".safetensors"))
    for f in files:
        path = os.path.join(FIXTURES, f)
        with open(path[: -len(".safetensors")] + ".expected.json") as fh:
            exp = json.load(fh)
        problems = []
        tensors = load_file(path)
        with safe_open(path, framework="pt") as so:
            meta = so.metadata()
            keys = sorted(so.keys())
            sliced = {k: so.get_tensor(k) for k in keys}
        if (meta or None) != exp["metadata"]:
            problems.append(f"metadata {meta!r} != {exp['metadata']!r}")
        if keys != sorted(exp["tensors"]):
            problems.append(f"names {keys} != {sorted(exp['tensors'])}")
        for name, e in exp["tensors"].items():
            t = tensors.get(name)
            if t is None:
                problems.append(f"{name}: missing")
                continue
            dn = DTYPE_NAMES.get(t.dtype, str(t.dtype))
            if dn != e["dtype"]:
                problems.append(f"{name}: dtype {dn} != {e['dtype']}")
            if list(t.shape) != e["shape"]:
                problems.append(f"{name}: shape {list(t.shape)} != {e['shape']}")
            if raw_hex(t) != e["hex"]:
                problems.append(f"{name}: bytes differ")
            if raw_hex(sliced[name]) != raw_hex(t):
                problems.append(f"{name}: load_file and safe_open disagree")
            got = value_strings(t, dn)
            bad = [i for i, (a, b) in enumerate(zip(got, e["values"])) if not same_value(a, b)]
            if len(got) != len(e["values"]) or bad:
                i = bad[0] if bad else 0
                problems.append(f"{name}: {len(bad)} values differ, first at {i}: torch {got[i:i+1]} vs faultline {e['values'][i:i+1]}")
        report["faultline_written"][f] = {"tensors": len(exp["tensors"]), "problems": problems}
        print(f"(a) {f}: {len(exp['tensors'])} tensors, {'OK' if not problems else 'PROBLEMS: ' + '; '.join(problems)}")


def python_tensors():
    g = torch.Generator().manual_seed(0)
    floats = [0.0, -0.0, 1.0, -1.0, 0.1, 448.0, 1e-3, float("inf"), float("-inf"), float("nan")]
    t = {
        "f64": torch.tensor(floats + [1e300, 5e-324], dtype=torch.float64).reshape(3, 4),
        "f32": torch.tensor(floats, dtype=torch.float32),
        "f16": torch.tensor(floats + [65504.0, 2.0 ** -24], dtype=torch.float16).reshape(2, 6),
        "bf16": torch.tensor(floats, dtype=torch.bfloat16).reshape(2, 5),
        "f8_e4m3": torch.arange(256, dtype=torch.int32).to(torch.uint8).view(torch.float8_e4m3fn).reshape(16, 16),
        "f8_e5m2": torch.arange(256, dtype=torch.int32).to(torch.uint8).view(torch.float8_e5m2).reshape(16, 16),
        "f8_e4m3_cast": torch.tensor(floats, dtype=torch.float32).to(torch.float8_e4m3fn),
        "i64": torch.tensor([0, -1, 2**63 - 1, -2**63, 1234567890123], dtype=torch.int64),
        "i32": torch.tensor([0, -1, 2**31 - 1, -2**31], dtype=torch.int32),
        "i16": torch.tensor([0, -1, 32767, -32768], dtype=torch.int16),
        "i8": torch.tensor([0, -1, 127, -128], dtype=torch.int8),
        "u8": torch.tensor([0, 1, 255], dtype=torch.uint8),
        "u16": torch.tensor([0, 1, -1], dtype=torch.int16).view(torch.uint16),
        "u32": torch.tensor([0, 1, -1], dtype=torch.int32).view(torch.uint32),
        "u64": torch.tensor([0, 1, -1], dtype=torch.int64).view(torch.uint64),
        "bool": torch.tensor([True, False, True]),
        "scalar": torch.tensor(0.0123, dtype=torch.float32),
        "empty": torch.zeros(0, 3, dtype=torch.bfloat16),
        "randn_bf16": torch.randn(4, 8, generator=g).to(torch.bfloat16),
    }
    return t


def cast_inputs():
    specials = [0.0, -0.0, 1.0, -1.0, 448.0, 449.0, 464.0, 464.0001, 465.0, 479.99, 480.0, 1000.0, -1000.0,
                57344.0, 61439.0, 61440.0, 65535.0, 65536.0, 65520.0, 65519.0, 1e30, -1e30,
                2.0 ** -10, 2.0 ** -9, 1.5 * 2.0 ** -9, 2.0 ** -17, 2.0 ** -25, 3 * 2.0 ** -25, 0.1, 3.14159,
                float("inf"), float("-inf"), float("nan")]
    x = torch.tensor(specials, dtype=torch.float32)
    g = torch.Generator().manual_seed(1234)
    bits = torch.randint(-(2**31), 2**31, (2048,), generator=g, dtype=torch.int64).to(torch.int32)
    rand = bits.view(torch.float32)
    near = torch.empty(1024).uniform_(-600, 600, generator=g).to(torch.float32)  # many in-range and overflow values
    return torch.cat([x, rand, near])


def write_python_files(out, report):
    pdir = os.path.join(tempfile.mkdtemp(), "python")  # only the tar goes to OUT (few files come back)
    os.makedirs(pdir)
    tensors = python_tensors()
    meta = {"writer": "python safetensors " + safetensors.__version__, "torch": torch.__version__}
    save_file(tensors, os.path.join(pdir, "py-all-dtypes.safetensors"), metadata=meta)
    exp = {"metadata": meta, "tensors": {}}
    for name, t in tensors.items():
        dn = DTYPE_NAMES[t.dtype]
        exp["tensors"][name] = {"dtype": dn, "shape": list(t.shape), "hex": raw_hex(t), "values": value_strings(t, dn)}
    with open(os.path.join(pdir, "py-all-dtypes.expected.json"), "w") as fh:
        json.dump(exp, fh, indent=1)
        fh.write("\n")

    x = cast_inputs()
    casts = {"x": x}
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    for dev in devices:
        xd = x.to(dev)
        casts[f"{dev}_e4m3"] = xd.to(torch.float8_e4m3fn).cpu()
        casts[f"{dev}_e5m2"] = xd.to(torch.float8_e5m2).cpu()
        casts[f"{dev}_bf16"] = xd.to(torch.bfloat16).cpu()
        casts[f"{dev}_f16"] = xd.to(torch.float16).cpu()
    save_file(casts, os.path.join(pdir, "py-casts.safetensors"), metadata={"devices": ",".join(devices), "torch": torch.__version__})
    report["python_written"]["casts_devices"] = devices
    report["python_written"]["cast_inputs"] = int(x.numel())

    try:
        from huggingface_hub import save_torch_state_dict
        sd = {f"model.layers.{i}.w": torch.randn(16, 16, generator=torch.Generator().manual_seed(i)).to(torch.bfloat16) for i in range(3)}
        sd["model.layers.0.k_scale"] = torch.tensor(0.5, dtype=torch.float32)
        os.makedirs(os.path.join(pdir, "sharded"))  # save_torch_state_dict does not create it
        save_torch_state_dict(sd, os.path.join(pdir, "sharded"), max_shard_size=1000)
        save_file(sd, os.path.join(pdir, "sharded-reference.safetensors"))
        report["python_written"]["sharded"] = sorted(os.listdir(os.path.join(pdir, "sharded")))
    except Exception as e:  # noqa: BLE001 - report and carry on
        report["python_written"]["sharded_error"] = repr(e)
    with tarfile.open(os.path.join(out, "python_written.tar"), "w") as tar:
        tar.add(pdir, arcname="python")
    report["python_written"]["files"] = sorted(os.path.relpath(os.path.join(d, f), pdir) for d, _, fs in os.walk(pdir) for f in fs)
    print("(b) wrote:", ", ".join(report["python_written"]["files"]))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "interop-out"
    os.makedirs(out, exist_ok=True)
    report = {"torch": torch.__version__, "safetensors": safetensors.__version__, "python": sys.version.split()[0],
              "cuda": torch.version.cuda, "device": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
              "faultline_written": {}, "python_written": {}}
    print(json.dumps({k: report[k] for k in ("torch", "safetensors", "python", "cuda", "device")}))
    ok = True
    for step in (check_faultline_files, lambda r: write_python_files(out, r)):
        try:
            step(report)
        except Exception:  # noqa: BLE001 - record, keep going so the other half still runs
            ok = False
            report.setdefault("errors", []).append(traceback.format_exc())
            traceback.print_exc()
    ok = ok and all(not v["problems"] for v in report["faultline_written"].values())
    report["ok"] = ok
    with open(os.path.join(out, "report.json"), "w") as fh:
        json.dump(report, fh, indent=1)
    print("RESULT:", "OK" if ok else "FAILED")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
