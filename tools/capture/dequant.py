"""A dump's inputs as the BF16 tensors that PyTorch's attention kernels take.

PyTorch's FlexAttention and SDPA need Q, K and V in one floating dtype, so an FP8 E4M3 cache is
dequantized first, the way vLLM's dequantizing paths do it: the stored code widened to float32,
times its per-tensor scale (a float32 multiply), rounded to BF16 (research attention-numerics.md
§1.3 "Dequant(FP8) * scale"). An FP8 query is dequantized the same way with q_scale. A BF16
query is used as stored: its q_scale is the checkpoint's and a BF16 query never carries it.
The rounding to BF16 is part of what these kernels compute, and the float64 reference does not
round: the tolerance has to cover it (test/fixtures/kernel/torch-attention/README.md).
"""
import torch

from case import pages_of


def dequantized_query(c):
    """[tokens, Hq, hd] BF16."""
    if c.q_fp8:
        return (c.query.float() * c.scale["q"]).to(torch.bfloat16)
    return c.query


def dequantized_cache(c):
    """(K, V), each [blocks, Hkv, page, hd] BF16: the physical pages, scales applied."""
    ks = c.scale["k"] if c.kv_fp8 else 1.0
    vs = c.scale["v"] if c.kv_fp8 else 1.0
    k = (c.kv_hnd[:, 0].float() * ks).to(torch.bfloat16)
    v = (c.kv_hnd[:, 1].float() * vs).to(torch.bfloat16)
    return k, v


def gather_request(k_pages, v_pages, c, b):
    """Request b's keys and values in logical order through its block table: [Hkv, seq_len, hd] each."""
    s = c.seq_lens_list[b]
    blocks = c.block_tables[b, :pages_of(s, c.page)].long()
    k = k_pages[blocks].permute(1, 0, 2, 3).reshape(c.num_kv_heads, -1, c.head_dim)[:, :s]
    v = v_pages[blocks].permute(1, 0, 2, 3).reshape(c.num_kv_heads, -1, c.head_dim)[:, :s]
    return k, v


def row_window(c, b, t):
    """Keys [lo, hi] that row t of request b attends (attention-numerics.md §2.3)."""
    p = c.seq_lens_list[b] - c.q_len + t
    lo = 0 if c.window_left < 0 else max(0, p - c.window_left)
    return lo, p


def expand_kv_heads(x, group):
    """[Hkv, ...] → [Hq, ...]: query head h reads KV head h // group (GQA)."""
    return x.repeat_interleave(group, dim=0)
