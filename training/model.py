"""The tiny-swa model in PyTorch, exactly as docs/model-format.md specifies.

Two attention paths share every weight:
- `fast=True` (training): torch's scaled_dot_product_attention with a boolean window mask, under
  BF16 autocast.
- `fast=False` (evaluation, calibration, golden logits): a plain softmax(q·kᵀ·scale + mask)·v in the
  dtype of the inputs (fp32 for the golden), no fused kernel, so the TypeScript engine can match it.
Written to run on torch 1.13 (CPU smoke tests) as well as 2.x.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import nn

BOS = 256
EOS = 257


@dataclass
class Config:
    vocab_size: int = 258
    hidden_size: int = 256
    intermediate_size: int = 768
    num_hidden_layers: int = 6
    num_attention_heads: int = 4
    num_key_value_heads: int = 2
    head_dim: int = 64
    sliding_window: int = 128
    rope_theta: float = 1_000_000.0
    rope_local_base_freq: float = 10_000.0
    query_pre_attn_scalar: int = 64
    rms_norm_eps: float = 1e-6
    layer_types: list[str] = field(
        default_factory=lambda: ["sliding_attention"] * 5 + ["full_attention"]
    )


def at_least_fp32(x: torch.Tensor) -> torch.Tensor:
    """fp32 math for bf16/fp16 inputs; fp64 stays fp64 (the float64 cross-check of the golden)."""
    return x if x.dtype in (torch.float32, torch.float64) else x.float()


class RMSNorm(nn.Module):
    """Gemma RMSNorm: x * rsqrt(mean(x²) + eps) * (1 + w), fp32 math, result in x's dtype."""

    def __init__(self, dim: int, eps: float) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xf = at_least_fp32(x)
        y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        return (y * (1.0 + self.weight.to(xf.dtype))).to(x.dtype)


def gelu_tanh(x: torch.Tensor) -> torch.Tensor:
    return F.gelu(x, approximate="tanh")


class GeGLU(nn.Module):
    def __init__(self, d: int, inner: int) -> None:
        super().__init__()
        self.gate_proj = nn.Linear(d, inner, bias=False)
        self.up_proj = nn.Linear(d, inner, bias=False)
        self.down_proj = nn.Linear(inner, d, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(gelu_tanh(self.gate_proj(x)) * self.up_proj(x))


def rope_cos_sin(positions: torch.Tensor, head_dim: int, theta: float, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """cos/sin [T, head_dim] for NeoX rotate-half. Computed in float64 and rounded once to `dtype`
    (fp32), so an implementation in another language (JS numbers are float64) gets the same table."""
    i = torch.arange(head_dim // 2, dtype=torch.float64, device=positions.device)
    inv_freq = theta ** (-2.0 * i / head_dim)
    angles = positions.to(torch.float64)[:, None] * inv_freq[None, :]
    angles = torch.cat([angles, angles], dim=-1)
    return angles.cos().to(dtype), angles.sin().to(dtype)


def apply_rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """x [B, H, T, hd] → rotated, pairs (i, i + hd/2); math in fp32, result in x's dtype."""
    half = x.shape[-1] // 2
    xf = at_least_fp32(x)
    rotated = torch.cat([-xf[..., half:], xf[..., :half]], dim=-1)
    return (xf * cos + rotated * sin).to(x.dtype)


def attention_mask(t: int, window: int | None, device: torch.device) -> torch.Tensor:
    """Boolean [T, T], True where query p may see key j: j ≤ p and, with a window W, j ≥ p − (W − 1)."""
    p = torch.arange(t, device=device)[:, None]
    j = torch.arange(t, device=device)[None, :]
    allowed = j <= p
    if window is not None:
        allowed = allowed & (j >= p - (window - 1))
    return allowed


class Attention(nn.Module):
    def __init__(self, cfg: Config, sliding: bool) -> None:
        super().__init__()
        self.cfg = cfg
        self.sliding = sliding
        self.theta = cfg.rope_local_base_freq if sliding else cfg.rope_theta
        hq, hkv, hd, d = cfg.num_attention_heads, cfg.num_key_value_heads, cfg.head_dim, cfg.hidden_size
        self.q_proj = nn.Linear(d, hq * hd, bias=False)
        self.k_proj = nn.Linear(d, hkv * hd, bias=False)
        self.v_proj = nn.Linear(d, hkv * hd, bias=False)
        self.o_proj = nn.Linear(hq * hd, d, bias=False)
        self.q_norm = RMSNorm(hd, cfg.rms_norm_eps)
        self.k_norm = RMSNorm(hd, cfg.rms_norm_eps)
        # Set by calibration: a dict that receives per-layer amax of q, k, v (as written to the cache).
        self.observer: dict[str, float] | None = None

    def forward(self, a: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, mask: torch.Tensor, fast: bool) -> torch.Tensor:
        b, t, _ = a.shape
        cfg = self.cfg
        hq, hkv, hd = cfg.num_attention_heads, cfg.num_key_value_heads, cfg.head_dim
        q = self.q_norm(self.q_proj(a).view(b, t, hq, hd)).transpose(1, 2)
        k = self.k_norm(self.k_proj(a).view(b, t, hkv, hd)).transpose(1, 2)
        v = self.v_proj(a).view(b, t, hkv, hd).transpose(1, 2)
        q = apply_rope(q, cos, sin)
        k = apply_rope(k, cos, sin)
        if self.observer is not None:
            for name, x in (("q", q), ("k", k), ("v", v)):
                self.observer[name] = max(self.observer.get(name, 0.0), x.detach().abs().max().item())
        # GQA: query head h reads kv head h // (hq / hkv)
        group = hq // hkv
        k = k.repeat_interleave(group, dim=1)
        v = v.repeat_interleave(group, dim=1)
        scale = cfg.query_pre_attn_scalar ** -0.5
        if fast and hasattr(F, "scaled_dot_product_attention"):
            # the default scale of SDPA is head_dim^-0.5, which equals ours while query_pre_attn_scalar == head_dim
            assert cfg.query_pre_attn_scalar == hd
            o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        else:
            s = torch.matmul(q, k.transpose(-1, -2)) * scale
            s = s.masked_fill(~mask, float("-inf"))
            o = torch.matmul(torch.softmax(s, dim=-1), v)
        return self.o_proj(o.transpose(1, 2).reshape(b, t, hq * hd))


class DecoderLayer(nn.Module):
    def __init__(self, cfg: Config, sliding: bool) -> None:
        super().__init__()
        d, eps = cfg.hidden_size, cfg.rms_norm_eps
        self.sliding = sliding
        self.input_layernorm = RMSNorm(d, eps)
        self.self_attn = Attention(cfg, sliding)
        self.post_attention_layernorm = RMSNorm(d, eps)
        self.pre_feedforward_layernorm = RMSNorm(d, eps)
        self.mlp = GeGLU(d, cfg.intermediate_size)
        self.post_feedforward_layernorm = RMSNorm(d, eps)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, mask: torch.Tensor, fast: bool) -> torch.Tensor:
        h = x + self.post_attention_layernorm(self.self_attn(self.input_layernorm(x), cos, sin, mask, fast))
        return h + self.post_feedforward_layernorm(self.mlp(self.pre_feedforward_layernorm(h)))


class Backbone(nn.Module):
    """Holds the `model.*` tensors (embedding, layers, final norm)."""

    def __init__(self, cfg: Config) -> None:
        super().__init__()
        self.embed_tokens = nn.Embedding(cfg.vocab_size, cfg.hidden_size)
        self.layers = nn.ModuleList(
            [DecoderLayer(cfg, kind == "sliding_attention") for kind in cfg.layer_types]
        )
        self.norm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps)


class MtpHead(nn.Module):
    """DeepSeek-V3-style MTP block without attention: predicts token t+2 from h_t and token t+1."""

    def __init__(self, cfg: Config) -> None:
        super().__init__()
        d, eps = cfg.hidden_size, cfg.rms_norm_eps
        self.hnorm = RMSNorm(d, eps)
        self.enorm = RMSNorm(d, eps)
        self.eh_proj = nn.Linear(2 * d, d, bias=False)
        self.pre_feedforward_layernorm = RMSNorm(d, eps)
        self.mlp = GeGLU(d, cfg.intermediate_size)
        self.post_feedforward_layernorm = RMSNorm(d, eps)
        self.norm = RMSNorm(d, eps)

    def forward(self, h: torch.Tensor, e: torch.Tensor) -> torch.Tensor:
        """h: main hidden state at t (before the final norm); e: scaled embedding of token t+1.
        Returns g, which stands in for h_{t+1} in the next chained draft step."""
        u = self.eh_proj(torch.cat([self.hnorm(h), self.enorm(e)], dim=-1))
        return u + self.post_feedforward_layernorm(self.mlp(self.pre_feedforward_layernorm(u)))


class TinySwa(nn.Module):
    def __init__(self, cfg: Config) -> None:
        super().__init__()
        self.cfg = cfg
        self.model = Backbone(cfg)
        self.mtp = MtpHead(cfg)

    def embed(self, ids: torch.Tensor) -> torch.Tensor:
        # sqrt(256) = 16 is exact in every float format involved
        return self.model.embed_tokens(ids) * math.sqrt(self.cfg.hidden_size)

    def lm_head(self, x: torch.Tensor) -> torch.Tensor:
        return F.linear(x, self.model.embed_tokens.weight.to(x.dtype))

    def hidden(self, ids: torch.Tensor, fast: bool = False) -> torch.Tensor:
        """ids [B, T] (positions 0..T-1) → residual stream after the last layer, before the final norm."""
        t = ids.shape[1]
        device = ids.device
        positions = torch.arange(t, device=device)
        table_dtype = torch.float64 if self.model.embed_tokens.weight.dtype == torch.float64 else torch.float32
        tables = {}
        for theta in (self.cfg.rope_local_base_freq, self.cfg.rope_theta):
            tables[theta] = rope_cos_sin(positions, self.cfg.head_dim, theta, table_dtype)
        masks = {True: attention_mask(t, self.cfg.sliding_window, device), False: attention_mask(t, None, device)}
        x = self.embed(ids)
        for layer in self.model.layers:
            cos, sin = tables[layer.self_attn.theta]
            x = layer(x, cos, sin, masks[layer.sliding], fast)
        return x

    def logits_from_hidden(self, h: torch.Tensor) -> torch.Tensor:
        return self.lm_head(self.model.norm(h))

    def mtp_step(self, h: torch.Tensor, next_ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """One MTP draft step: (h_t, token t+1) → (logits for t+2, g standing in for h_{t+1})."""
        g = self.mtp(h, self.embed(next_ids))
        return self.lm_head(self.mtp.norm(g)), g

    def forward(self, ids: torch.Tensor, fast: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
        """Main logits [B, T, V] and MTP logits [B, T-1, V] (position t predicts token t+2 from ids[t+1])."""
        h = self.hidden(ids, fast)
        logits = self.logits_from_hidden(h)
        mtp_logits, _ = self.mtp_step(h[:, :-1], ids[:, 1:])
        return logits, mtp_logits


def init_weights(model: TinySwa, seed: int) -> None:
    """Normal(0, 0.02) projections (output projections scaled by 1/sqrt(2·layers)), embedding
    std 1/sqrt(d) so that embed·sqrt(d) has unit RMS; norm weights 0 (Gemma's 1 + w)."""
    gen = torch.Generator().manual_seed(seed)
    cfg = model.cfg
    out_std = 0.02 / math.sqrt(2 * cfg.num_hidden_layers)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("norm.weight"):
                p.zero_()
            elif name == "model.embed_tokens.weight":
                p.copy_(torch.randn(p.shape, generator=gen) / math.sqrt(cfg.hidden_size))
            elif name.endswith("o_proj.weight") or name.endswith("down_proj.weight"):
                p.copy_(torch.randn(p.shape, generator=gen) * out_std)
            else:
                p.copy_(torch.randn(p.shape, generator=gen) * 0.02)


def tensor_names(model: TinySwa) -> list[str]:
    return [name for name, _ in model.named_parameters()]
