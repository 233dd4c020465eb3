"""(c) PyTorch FlexAttention over a paged KV cache, with a sliding-window + causal block mask.

The physical cache is the dump's pages, dequantized to BF16 (dequant.py) and laid out as
FlexAttention's paged helper expects: [1, Hkv, blocks * page, hd], physical key index
block * page + slot. The page table of torch.nn.attention.experimental._paged_attention.PagedAttention
is filled from the dump's block tables; its convert_logical_block_mask turns the logical block mask
(built by create_block_mask with kv blocks of one page) into the physical one, and its mask_mod
maps each physical key index back to a logical position, so pages no request owns (the junk pages)
are masked. The logical mask is the reference's rule: row t of request b sits at
p = seq_len[b] − q_len + t and sees keys max(0, p − window_left) ≤ j ≤ p.

`flex-paged` runs torch.compile(flex_attention): the generated Triton kernel (for these shapes
the flex-decoding kernel). `flex-paged-eager` runs flex_attention uncompiled, which is PyTorch's
unfused reference path, kept as a separate kernel name so the two are never confused.
"""
import warnings

import torch

from attempts import first_that_runs
from case import pages_of
from dequant import dequantized_cache, dequantized_query

_COMPILED = {}
EAGER_WARNING = "without torch.compile"


def _flex_api():
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    from torch.nn.attention.experimental._paged_attention import PagedAttention
    return create_block_mask, flex_attention, PagedAttention


def _compiled(flex_attention):
    if "fn" not in _COMPILED:
        cfg = torch._dynamo.config
        # one compile per (q_len, window) and case: far past the default limit, and a limit hit
        # must fail loudly rather than fall back to the eager path under the compiled kernel's name
        for name in ("recompile_limit", "cache_size_limit", "accumulated_recompile_limit", "accumulated_cache_size_limit"):
            if hasattr(cfg, name):
                setattr(cfg, name, 512)
        if hasattr(cfg, "fail_on_recompile_limit_hit"):
            cfg.fail_on_recompile_limit_hit = True
        _COMPILED["fn"] = torch.compile(flex_attention, dynamic=False)
    return _COMPILED["fn"]


def sliding_window_causal(seq_lens, q_len, window_left):
    """The logical mask_mod: keys max(0, p − window_left) ≤ kv ≤ p, p = seq_len[b] − q_len + q_idx."""
    def mask_mod(b, h, q_idx, kv_idx):
        p = seq_lens[b] - q_len + q_idx
        visible = kv_idx <= p
        if window_left >= 0:
            visible = visible & (kv_idx >= p - window_left)
        return visible
    return mask_mod


def paged_table(PagedAttention, c, n_blocks, device):
    """A PagedAttention whose page table is the dump's block tables (pages may be shared by requests)."""
    paged = PagedAttention(n_blocks, c.page, c.batch, device=device)
    for b, s in enumerate(c.seq_lens_list):
        n = pages_of(s, c.page)
        blocks = c.block_tables[b, :n].long()
        paged.page_table[b, :n] = blocks
        paged.physical_to_logical[b, blocks] = torch.arange(n, device=device)
        paged.capacity[b] = n * c.page
    return paged


def flex_inputs(c):
    create_block_mask, flex_attention, PagedAttention = _flex_api()
    device = str(c.query.device)
    k_pages, v_pages = dequantized_cache(c)  # [blocks, Hkv, page, hd]
    n_blocks = k_pages.shape[0]
    k_cache = k_pages.permute(1, 0, 2, 3).reshape(1, c.num_kv_heads, n_blocks * c.page, c.head_dim)
    v_cache = v_pages.permute(1, 0, 2, 3).reshape(1, c.num_kv_heads, n_blocks * c.page, c.head_dim)
    q = dequantized_query(c).view(c.batch, c.q_len, c.num_heads, c.head_dim).transpose(1, 2).contiguous()
    paged = paged_table(PagedAttention, c, n_blocks, device)
    logical_len = c.block_tables.shape[1] * c.page
    logical = create_block_mask(sliding_window_causal(c.seq_lens, c.q_len, c.window_left),
                                c.batch, None, c.q_len, logical_len, device=device, BLOCK_SIZE=(128, c.page))
    physical = paged.convert_logical_block_mask(logical)
    return flex_attention, q, k_cache, v_cache, physical


def _to_tokens(out, c):
    """[B, Hq, q_len, hd] → [tokens, Hq, hd] BF16."""
    return out.transpose(1, 2).reshape(c.tokens, c.num_heads, c.head_dim).to(torch.bfloat16)


def paged_flex(c, compiled):
    """Returns (output [tokens, Hq, hd] BF16, metadata notes)."""
    flex_attention, q, k_cache, v_cache, mask = flex_inputs(c)
    fn = _compiled(flex_attention) if compiled else flex_attention

    def call(k, v, kernel_options=None, gqa=True):
        def run():
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                out = fn(q, k, v, block_mask=mask, scale=c.sm_scale, enable_gqa=gqa, kernel_options=kernel_options)
            if compiled and any(EAGER_WARNING in str(w.message) for w in caught):
                raise RuntimeError("torch.compile fell back to the unfused eager path")
            return out
        return run

    group = c.num_heads // c.num_kv_heads
    batch_kv = lambda x: x.expand(c.batch, -1, -1, -1)  # noqa: E731
    heads_kv = lambda x: x.expand(c.batch, -1, -1, -1).repeat_interleave(group, dim=1)  # noqa: E731
    ways = [
        ("kv batch 1 broadcast, enable_gqa", call(k_cache, v_cache)),
        ("kv batch 1 broadcast, enable_gqa, BLOCK_M/N 16", call(k_cache, v_cache, {"BLOCK_M": 16, "BLOCK_N": 16})),
        ("kv expanded to the batch, enable_gqa", call(batch_kv(k_cache), batch_kv(v_cache))),
        ("kv expanded to the batch and the query heads", call(heads_kv(k_cache), heads_kv(v_cache), gqa=False)),
    ]
    out, how, refusals, _ = first_that_runs(ways)
    notes = {
        "flex_call": how,
        "flex_mode": "torch.compile(flex_attention, dynamic=False)" if compiled else "flex_attention eager (unfused reference path)",
        "block_mask": f"create_block_mask(sliding-window + causal, BLOCK_SIZE=(128, {c.page})) → PagedAttention.convert_logical_block_mask",
        "kv_dequantized": "bf16(float32(code) * scale) before the kernel",
    }
    if refusals:
        notes["refused"] = "; ".join(f"{a}: {b}" for a, b in refusals)
    return _to_tokens(out, c), notes
