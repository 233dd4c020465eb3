"""Minimal safetensors reader/writer (the format: u64 little-endian header length, JSON header
{name: {dtype, shape, data_offsets}} plus optional "__metadata__", then the raw little-endian data).
Our own so that the pipeline needs no extra package on any machine (torch 1.13 CPU or 2.x GPU)."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import torch

_TO_ST = {torch.float32: "F32", torch.bfloat16: "BF16", torch.int64: "I64", torch.float16: "F16"}
_FROM_ST = {v: k for k, v in _TO_ST.items()}


def _raw_bytes(t: torch.Tensor) -> bytes:
    t = t.detach().contiguous().cpu()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().astype("<i2").tobytes()
    return t.numpy().astype(t.numpy().dtype.newbyteorder("<")).tobytes()


def save(path: Path, tensors: dict[str, torch.Tensor], metadata: dict[str, str] | None = None) -> int:
    """Writes tensors in the given order; returns the number of data bytes (for index total_size)."""
    header: dict[str, object] = {}
    if metadata:
        header["__metadata__"] = metadata
    blobs = []
    offset = 0
    for name, t in tensors.items():
        if t.dtype not in _TO_ST:
            raise ValueError(f"{name}: unsupported dtype {t.dtype}")
        raw = _raw_bytes(t)
        header[name] = {"dtype": _TO_ST[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)  # pad so the data starts 8-byte aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for raw in blobs:
            f.write(raw)
    return offset


def load(path: Path) -> dict[str, torch.Tensor]:
    data = Path(path).read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    base = 8 + n
    out: dict[str, torch.Tensor] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        raw = data[base + start : base + end]
        dtype = _FROM_ST[info["dtype"]]
        if dtype == torch.bfloat16:
            t = torch.from_numpy(np.frombuffer(raw, dtype="<i2").copy()).view(torch.bfloat16)
        else:
            np_dtype = {torch.float32: "<f4", torch.int64: "<i8", torch.float16: "<f2"}[dtype]
            t = torch.from_numpy(np.frombuffer(raw, dtype=np_dtype).copy())
        out[name] = t.reshape(info["shape"])
    return out


def load_sharded(model_dir: Path) -> dict[str, torch.Tensor]:
    """Loads every tensor named in model.safetensors.index.json (HF sharded-checkpoint convention)."""
    index = json.loads((Path(model_dir) / "model.safetensors.index.json").read_text())
    out: dict[str, torch.Tensor] = {}
    for shard in sorted(set(index["weight_map"].values())):
        out.update(load(Path(model_dir) / shard))
    missing = set(index["weight_map"]) - set(out)
    if missing:
        raise ValueError(f"index names tensors its shards lack: {sorted(missing)[:5]}")
    return out
