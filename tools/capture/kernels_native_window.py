"""(e) SDPA's FlashAttention-2 and memory-efficient kernels with their own sliding window.

The public SDPA API has no window argument, but the two CUDA kernels behind it take one through
their ATen operators (private: torch.ops.aten._flash_attention_forward / _efficient_attention_forward).
Here they run the whole batch in one varlen call — every request's q_len rows against its gathered
keys, causal from the bottom right (row t at p = seq_len − q_len + t) — with the window given to the
kernel itself, which is how a serving engine drives FlashAttention's sliding window in spec decode:

  flash-varlen-window      window_size_left = window_left, window_size_right = 0 (keys p − left … p);
                           K/V keep their KV heads (FlashAttention's own GQA);
  efficient-varlen-window  custom_mask_type 2 (causal from the bottom right), window_size =
                           window_left + 1 (the number of keys a row sees, itself included);
                           K/V heads repeated (the kernel has no GQA).

A torch whose operator lacks these arguments refuses, and the capture records that.
"""
import torch

from attempts import first_that_runs
from dequant import dequantized_cache, dequantized_query, expand_kv_heads, gather_request


def _packed(c):
    """q [tokens, Hq, hd]; k, v [Σ seq_len, Hkv, hd]; cumulative lengths (int32) and maxima."""
    k_pages, v_pages = dequantized_cache(c)
    ks, vs = [], []
    for b in range(c.batch):
        k, v = gather_request(k_pages, v_pages, c, b)
        ks.append(k.transpose(0, 1))
        vs.append(v.transpose(0, 1))
    dev = c.query.device
    cum_q = torch.arange(0, c.batch + 1, device=dev, dtype=torch.int32) * c.q_len
    cum_k = torch.zeros(c.batch + 1, device=dev, dtype=torch.int32)
    cum_k[1:] = torch.cumsum(torch.tensor(c.seq_lens_list, device=dev), 0).to(torch.int32)
    q = dequantized_query(c).contiguous()
    return q, torch.cat(ks).contiguous(), torch.cat(vs).contiguous(), cum_q, cum_k, max(c.seq_lens_list)


def flash_window(c):
    q, k, v, cum_q, cum_k, max_k = _packed(c)
    left = c.window_left if c.window_left >= 0 else -1

    def run():
        return torch.ops.aten._flash_attention_forward(
            q, k, v, cum_q, cum_k, c.q_len, max_k, 0.0, True, False,
            scale=c.sm_scale, window_size_left=left, window_size_right=0)[0]

    out, how, refusals, _ = first_that_runs([("aten._flash_attention_forward varlen", run)])
    return out.to(torch.bfloat16), _notes(how, refusals, f"window_size_left={left}, window_size_right=0, is_causal")


def efficient_window(c):
    q, k, v, cum_q, cum_k, max_k = _packed(c)
    group = c.num_heads // c.num_kv_heads
    k = expand_kv_heads(k.transpose(0, 1), group).transpose(0, 1).contiguous()
    v = expand_kv_heads(v.transpose(0, 1), group).transpose(0, 1).contiguous()
    window = c.window_left + 1 if c.window_left >= 0 else None

    def run():
        return torch.ops.aten._efficient_attention_forward(
            q[None], k[None], v[None], None, cum_q, cum_k, c.q_len, max_k, 0.0, 2, False,
            scale=c.sm_scale, window_size=window)[0][0]

    out, how, refusals, _ = first_that_runs([("aten._efficient_attention_forward varlen", run)])
    return out.to(torch.bfloat16), _notes(how, refusals, f"custom_mask_type=2 (causal from bottom right), window_size={window}")


def _notes(how, refusals, window):
    notes = {"native_call": how, "native_window": window,
             "kv_dequantized": "bf16(float32(code) * scale) before the kernel; pages gathered per request"}
    if refusals:
        notes["refused"] = "; ".join(f"{a}: {b}" for a, b in refusals)
    return notes
