"""(b) A Triton paged decode kernel written for faultline, in the trtllm-gen convention.

One program per (query token, head). Q, K, V are read as stored (BF16, or FP8 E4M3 decoded without
scale) and the scales come in as the kernel arguments trtllm-gen takes:
    O = bmm2_scale * softmax(bmm1_scale * Q.K^T over the row's window) . V
Spec-as-decode: q_len_per_req rows per request, row t at p = seq_len - q_len + t, each with its own
window [max(0, p - window_left), p]. Keys are visited one KV page at a time through the block table
(online softmax, float32 state), so every page alignment of the window start is a different case.

PLANT_BUG (a deliberate, documented defect for testing faultline's localization): with a BF16 query,
q_len_per_req > 4 and a window, a row whose window start lo is a positive multiple of the page size
starts one page early (attends [lo - page, p]) in the programs of KV head 1 only.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _paged_decode(q_ptr, kv_ptr, bt_ptr, seq_ptr, out_ptr,
                  s_qt, s_qh, s_kb, s_kp, s_kh, s_kt, s_bt, s_ot, s_oh,
                  q_len, window_left, bmm1, bmm2,
                  GROUP: tl.constexpr, PAGE: tl.constexpr, HEAD_DIM: tl.constexpr,
                  HAS_WINDOW: tl.constexpr, PLANT_BUG: tl.constexpr):
    tok = tl.program_id(0)
    head = tl.program_id(1)
    req = tok // q_len
    row = tok % q_len
    kvh = head // GROUP
    seq_len = tl.load(seq_ptr + req)
    p = seq_len - q_len + row
    if HAS_WINDOW:
        lo = tl.maximum(p - window_left, 0)
    else:
        lo = p * 0
    if PLANT_BUG:  # decided on the host: BF16 query, window on, q_len_per_req > 4
        bug = (kvh == 1) & (lo > 0) & (lo % PAGE == 0)
        lo = tl.where(bug, lo - PAGE, lo)
    d = tl.arange(0, HEAD_DIM)
    slot = tl.arange(0, PAGE)
    q = tl.load(q_ptr + tok * s_qt + head * s_qh + d).to(tl.float32)
    m_i = tl.max(tl.full([PAGE], float("-inf"), tl.float32), 0)
    l_i = tl.sum(tl.zeros([PAGE], tl.float32), 0)
    acc = tl.zeros([HEAD_DIM], tl.float32)
    for page_idx in range(lo // PAGE, p // PAGE + 1):
        block = tl.load(bt_ptr + req * s_bt + page_idx).to(tl.int64)
        base = kv_ptr + block * s_kb + kvh * s_kh + slot[:, None] * s_kt + d[None, :]
        k = tl.load(base).to(tl.float32)
        v = tl.load(base + s_kp).to(tl.float32)
        key = page_idx * PAGE + slot
        s = tl.sum(q[None, :] * k, axis=1) * bmm1
        s = tl.where((key >= lo) & (key <= p), s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 0))
        alpha = tl.exp(m_i - m_new)
        w = tl.exp(s - m_new)
        l_i = l_i * alpha + tl.sum(w, 0)
        acc = acc * alpha + tl.sum(w[:, None] * v, axis=0)
        m_i = m_new
    o = acc / l_i * bmm2
    tl.store(out_ptr + tok * s_ot + head * s_oh + d, o.to(tl.bfloat16))


def paged_decode(c, plant_bug=False):
    # the planted defect lives in the BF16-query, windowed, q_len_per_req > 4 specialization only
    plant_bug = plant_bug and not c.q_fp8 and c.window_left >= 0 and c.q_len > 4
    out = torch.empty(c.tokens, c.num_heads, c.head_dim, dtype=torch.bfloat16, device=c.query.device)
    kv = c.kv_hnd
    q = c.query
    grid = (c.tokens, c.num_heads)
    _paged_decode[grid](q, kv, c.block_tables, c.seq_lens, out,
                        q.stride(0), q.stride(1), kv.stride(0), kv.stride(1), kv.stride(2), kv.stride(3),
                        c.block_tables.stride(0), out.stride(0), out.stride(1),
                        c.q_len, c.window_left, c.bmm1, c.bmm2,
                        GROUP=c.num_heads // c.num_kv_heads, PAGE=c.page, HEAD_DIM=c.head_dim,
                        HAS_WINDOW=c.window_left >= 0, PLANT_BUG=plant_bug)
    return out


def planted_pairs(seq_lens, q_len, window_left, page, num_heads, num_kv_heads, q_fp8):
    """The (request, row, head) triples PLANT_BUG corrupts, for the record."""
    if q_fp8 or window_left < 0 or q_len <= 4:
        return []
    group = num_heads // num_kv_heads
    out = []
    for b, s in enumerate(seq_lens):
        for t in range(q_len):
            lo = max(0, s - q_len + t - window_left)
            if lo > 0 and lo % page == 0:
                out += [(b, t, h) for h in range(num_heads) if h // group == 1]
    return out
