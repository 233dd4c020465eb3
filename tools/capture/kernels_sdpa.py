"""(d) torch.nn.functional.scaled_dot_product_attention with one backend forced at a time.

SDPA has no paged cache: each request's pages are gathered through its block table first
(dequant.gather_request), K/V heads repeated for the query heads (GQA). The sliding window and the
spec-decode causal rule are exact in one of two ways, whichever the forced backend accepts first:

  request-mask  one call per request: q_len query rows against the request's seq_len keys, with a
                boolean attn_mask [q_len, seq_len] that is the reference's rule (each row its window);
  row-window    one call per query row, against exactly the keys of its window and no mask — for a
                backend that takes no attn_mask (FlashAttention) and whose is_causal is top-left.

The backend is forced with torch.nn.attention.sdpa_kernel([backend]); a backend that refuses both
raises, and the capture records the refusal instead of a dump.
"""
import torch
import torch.nn.functional as F

from attempts import first_that_runs
from dequant import dequantized_cache, dequantized_query, expand_kv_heads, gather_request, row_window

BACKENDS = {
    "sdpa-flash": "FLASH_ATTENTION",
    "sdpa-efficient": "EFFICIENT_ATTENTION",
    "sdpa-cudnn": "CUDNN_ATTENTION",
    "sdpa-math": "MATH",
}


def _requests(c):
    """Per request: (b, q [Hq, q_len, hd], k, v [Hq, seq_len, hd]) in BF16."""
    q_all = dequantized_query(c)
    k_pages, v_pages = dequantized_cache(c)
    group = c.num_heads // c.num_kv_heads
    for b in range(c.batch):
        k, v = gather_request(k_pages, v_pages, c, b)
        q = q_all[b * c.q_len:(b + 1) * c.q_len].transpose(0, 1).contiguous()
        yield b, q, expand_kv_heads(k, group).contiguous(), expand_kv_heads(v, group).contiguous()


def window_mask(c, b, device):
    """[q_len, seq_len] True where row t may attend key j."""
    s = c.seq_lens_list[b]
    p = (s - c.q_len + torch.arange(c.q_len, device=device))[:, None]
    j = torch.arange(s, device=device)[None, :]
    visible = j <= p
    if c.window_left >= 0:
        visible &= j >= p - c.window_left
    return visible


def request_mask(c):
    out = torch.empty(c.tokens, c.num_heads, c.head_dim, dtype=torch.bfloat16, device=c.query.device)
    for b, q, k, v in _requests(c):
        mask = window_mask(c, b, q.device)[None, None]
        o = F.scaled_dot_product_attention(q[None], k[None], v[None], attn_mask=mask, scale=c.sm_scale)
        out[b * c.q_len:(b + 1) * c.q_len] = o[0].transpose(0, 1)
    return out


def row_windows(c):
    out = torch.empty(c.tokens, c.num_heads, c.head_dim, dtype=torch.bfloat16, device=c.query.device)
    for b, q, k, v in _requests(c):
        for t in range(c.q_len):
            lo, hi = row_window(c, b, t)
            o = F.scaled_dot_product_attention(q[None, :, t:t + 1], k[None, :, lo:hi + 1], v[None, :, lo:hi + 1],
                                               scale=c.sm_scale)
            out[b * c.q_len + t] = o[0, :, 0]
    return out


def forced_sdpa(c, kernel):
    """Returns (output [tokens, Hq, hd] BF16, metadata notes); raises NoWayRan if the backend refuses."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    backend = getattr(SDPBackend, BACKENDS[kernel])

    def forced(fn):
        def run():
            with sdpa_kernel([backend]):
                return fn(c)
        return run

    out, how, refusals, _ = first_that_runs([("request-mask", forced(request_mask)), ("row-window", forced(row_windows))])
    notes = {
        "sdpa_backend": BACKENDS[kernel],
        "sdpa_formulation": how,
        "kv_dequantized": "bf16(float32(code) * scale) before the kernel; pages gathered per request; kv heads repeated",
    }
    if refusals:
        notes["refused"] = "; ".join(f"{a}: {b}" for a, b in refusals)
    return out, notes
