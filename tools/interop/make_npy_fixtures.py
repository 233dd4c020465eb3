#!/usr/bin/env python3
"""Writes the .npy fixtures in test/fixtures/tensors/npy/ with numpy, plus expected.json.

Run from the repository root:  python3 tools/interop/make_npy_fixtures.py
Every file is a numpy-written .npy (format 1.0 unless the name says v2/v3); expected.json lists
each file's dtype as faultline names it, its shape, and its values in row-major order
(floats as numbers or "nan"/"inf"/"-inf", integers as decimal strings so int64 stays exact).
"""
import json
import math
import os
import sys

import numpy as np

OUT = os.path.join("test", "fixtures", "tensors", "npy")
FAULTLINE = {"f2": "F16", "f4": "F32", "f8": "F64", "i1": "I8", "i2": "I16", "i4": "I32", "i8": "I64",
             "u1": "U8", "u2": "U16", "u4": "U32", "u8": "U64", "b1": "BOOL"}


def values_of(a):
    flat = np.ascontiguousarray(a).reshape(-1)
    out = []
    for v in flat.tolist():
        if isinstance(v, bool):
            out.append(1 if v else 0)
        elif isinstance(v, int):
            out.append(str(v))
        elif math.isnan(v):
            out.append("nan")
        elif math.isinf(v):
            out.append("inf" if v > 0 else "-inf")
        else:
            out.append(v)
    return out


def main():
    os.makedirs(OUT, exist_ok=True)
    expected = {}

    def save(name, a, version=None):
        path = os.path.join(OUT, name)
        with open(path, "wb") as f:
            if version is None:
                np.save(f, a)
            else:
                np.lib.format.write_array(f, a, version=version)
        kind = a.dtype.kind + str(a.dtype.itemsize)
        expected[name] = {"dtype": FAULTLINE[kind], "shape": list(a.shape), "values": values_of(a)}

    floats = [0.0, -0.0, 1.5, -2.25, float("inf"), float("-inf"), float("nan"), 0.1]
    for code in ["f2", "f4", "f8"]:
        for order in "<>":
            save(f"{code}_{'le' if order == '<' else 'be'}.npy", np.array(floats, dtype=order + code).reshape(2, 4))
    for code in ["i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8"]:
        info = np.iinfo(np.dtype(code))
        vals = [0, 1, info.max, info.min, 7, info.max - 1]
        for order in ("<>" if code[1] != "1" else "|"):
            suffix = {"<": "le", ">": "be", "|": "na"}[order]
            save(f"{code}_{suffix}.npy", np.array(vals, dtype=(order if order != "|" else "") + code).reshape(3, 2))
    save("b1.npy", np.array([True, False, True, True], dtype=bool))
    save("f8_scalar.npy", np.array(3.25, dtype="<f8"))
    save("f4_empty.npy", np.zeros((0, 3), dtype="<f4"))
    fortran = np.asfortranarray(np.arange(24, dtype="<i4").reshape(2, 3, 4))
    assert fortran.flags.f_contiguous
    save("i4_fortran.npy", fortran)
    save("f4_be_fortran.npy", np.asfortranarray((np.arange(6).reshape(2, 3) / 8).astype(">f4")))
    save("f4_v2.npy", np.arange(5, dtype="<f4"), version=(2, 0))
    save("f4_v3.npy", np.arange(5, dtype="<f4"), version=(3, 0))

    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump({"numpy": np.__version__, "python": sys.version.split()[0], "files": expected}, f, indent=1)
        f.write("\n")
    print(f"wrote {len(expected)} files to {OUT} with numpy {np.__version__}")


if __name__ == "__main__":
    main()
