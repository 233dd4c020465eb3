"""FP8 KV calibration: per-layer amax of Q, K (after q_norm/k_norm + RoPE, i.e. as written to the KV
cache and fed to attention) and V over held-out text, then scale = amax / 448 (E4M3's largest finite
value), so the largest observed value maps exactly onto 448."""

from __future__ import annotations

import torch

from corpus import eval_chunks
from model import TinySwa

E4M3_MAX = 448.0


@torch.no_grad()
def calibrate(model: TinySwa, data: torch.Tensor, ctx: int, batch: int = 32) -> dict[str, list[float]]:
    """Returns {"q_amax", "k_amax", "v_amax", "q_scale", "k_scale", "v_scale"}: one value per layer.
    Scales are rounded once to fp32 (they are stored as F32 scalars)."""
    observers = []
    for layer in model.model.layers:
        layer.self_attn.observer = {}
        observers.append(layer.self_attn.observer)
    try:
        x, _, _ = eval_chunks(data, ctx)
        # padding after the last byte is EOS; it is real model input, so observing it is harmless
        for i in range(0, x.shape[0], batch):
            model.hidden(x[i : i + batch], fast=False)
    finally:
        for layer in model.model.layers:
            layer.self_attn.observer = None
    out: dict[str, list[float]] = {}
    for name in ("q", "k", "v"):
        amax = [obs[name] for obs in observers]
        out[f"{name}_amax"] = amax
        out[f"{name}_scale"] = [float(torch.tensor(a / E4M3_MAX, dtype=torch.float32)) for a in amax]
    return out
