"""Kernel dumps (docs/kernel-dumps.md) in plain Python: a small safetensors reader/writer.

Pure standard library, so it runs (and is tested) on machines without torch; `to_torch` /
`from_torch` convert when torch is there. A tensor is (dtype, shape, raw little-endian bytes).
The writer lays tensors out back to back after an 8-byte-aligned, space-padded JSON header,
which is what the safetensors format requires and what faultline's strict reader checks.
"""
import json
import struct

ITEM_SIZE = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "F8_E4M3": 1, "F8_E5M2": 1,
             "I64": 8, "I32": 4, "I16": 2, "I8": 1, "U64": 8, "U32": 4, "U16": 2, "U8": 1, "BOOL": 1}


class Tensor:
    def __init__(self, dtype, shape, data):
        self.dtype, self.shape, self.data = dtype, list(shape), bytes(data)
        n = ITEM_SIZE[dtype]
        for d in self.shape:
            n *= d
        if n != len(self.data):
            raise ValueError(f"{dtype} {self.shape} needs {n} bytes, got {len(self.data)}")

    def values(self):
        """Integers/floats of I32/I64/F32 tensors as a Python list (small tensors only)."""
        fmt = {"I32": "i", "I64": "q", "U32": "I", "F32": "f", "F64": "d"}[self.dtype]
        return list(struct.unpack(f"<{len(self.data) // ITEM_SIZE[self.dtype]}{fmt}", self.data))


def read(path):
    """Returns (tensors: dict name -> Tensor, metadata: dict str -> str)."""
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    if 8 + n > len(blob):
        raise ValueError(f"{path}: header length {n} runs past the file")
    header = json.loads(blob[8:8 + n].decode("utf-8"))
    metadata = header.pop("__metadata__", {}) or {}
    base = 8 + n
    tensors = {}
    for name, e in header.items():
        b, end = e["data_offsets"]
        tensors[name] = Tensor(e["dtype"], e["shape"], blob[base + b:base + end])
    return tensors, dict(metadata)


def serialize(tensors, metadata):
    order = sorted(tensors.items(), key=lambda kv: (-ITEM_SIZE[kv[1].dtype], kv[0]))
    header, offset = {}, 0
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    for name, t in order:
        header[name] = {"dtype": t.dtype, "shape": t.shape, "data_offsets": [offset, offset + len(t.data)]}
        offset += len(t.data)
    raw = json.dumps(header, separators=(",", ":")).encode("utf-8")
    raw += b" " * ((8 - len(raw) % 8) % 8)
    return struct.pack("<Q", len(raw)) + raw + b"".join(t.data for _, t in order)


def write(path, tensors, metadata):
    tmp = f"{path}.tmp"
    with open(tmp, "wb") as f:
        f.write(serialize(tensors, metadata))
    import os
    os.replace(tmp, path)


def torch_dtype(name):
    import torch
    return {"F32": torch.float32, "F64": torch.float64, "F16": torch.float16, "BF16": torch.bfloat16,
            "F8_E4M3": torch.float8_e4m3fn, "F8_E5M2": torch.float8_e5m2, "I32": torch.int32,
            "I64": torch.int64, "U8": torch.uint8}[name]


def to_torch(t, device="cpu"):
    import torch
    raw = torch.frombuffer(bytearray(t.data), dtype=torch.uint8) if t.data else torch.empty(0, dtype=torch.uint8)
    return raw.view(torch_dtype(t.dtype)).reshape(t.shape).to(device)


def from_torch(x):
    import torch
    names = {torch.float32: "F32", torch.bfloat16: "BF16", torch.float16: "F16", torch.float8_e4m3fn: "F8_E4M3",
             torch.int32: "I32", torch.int64: "I64"}
    x = x.detach().contiguous().cpu()
    return Tensor(names[x.dtype], list(x.shape), x.reshape(-1).view(torch.uint8).numpy().tobytes())
