"""(a) Paged sliding-window attention in plain PyTorch on the GPU.

Semantics of the reference (docs/kernel-dumps.md): real values = stored values x their scales,
logits = sm_scale * Q.K over each row's own window  max(0, p - window_left) <= j <= p  with
p = seq_len - q_len + row, softmax, times V. float32 on the GPU (TF32 off), output rounded to BF16.
"""
import torch

from case import pages_of


def paged_swa_attention(c):
    q = c.query.float() * (c.scale["q"] if c.q_fp8 else 1.0)
    kv = c.kv_hnd.float()
    ks = c.scale["k"] if c.kv_fp8 else 1.0
    vs = c.scale["v"] if c.kv_fp8 else 1.0
    group = c.num_heads // c.num_kv_heads
    out = torch.empty(c.tokens, c.num_heads, c.head_dim, dtype=torch.float32, device=q.device)
    for b, s in enumerate(c.seq_lens_list):
        blocks = c.block_tables[b, :pages_of(s, c.page)].long()
        # [pages, Hkv, P, hd] -> [Hkv, pages*P, hd] -> first s keys
        k = kv[blocks, 0].permute(1, 0, 2, 3).reshape(c.num_kv_heads, -1, c.head_dim)[:, :s] * ks
        v = kv[blocks, 1].permute(1, 0, 2, 3).reshape(c.num_kv_heads, -1, c.head_dim)[:, :s] * vs
        k = k.repeat_interleave(group, dim=0)
        v = v.repeat_interleave(group, dim=0)
        rows = slice(b * c.q_len, (b + 1) * c.q_len)
        qb = q[rows].transpose(0, 1)  # [Hq, q_len, hd]
        logits = c.sm_scale * torch.matmul(qb, k.transpose(1, 2))  # [Hq, q_len, s]
        pos = (s - c.q_len + torch.arange(c.q_len, device=q.device))[:, None]
        j = torch.arange(s, device=q.device)[None, :]
        visible = j <= pos
        if c.window_left >= 0:
            visible &= j >= pos - c.window_left
        logits = logits.masked_fill(~visible, float("-inf"))
        out[rows] = torch.matmul(torch.softmax(logits, dim=-1), v).transpose(0, 1)
    return out.to(torch.bfloat16)
