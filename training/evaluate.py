"""Evaluation with the exact (non-fused) forward: bits/byte, greedy generation, MTP acceptance."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from corpus import eval_chunks
from model import BOS, TinySwa

LN2 = math.log(2.0)


@torch.no_grad()
def heldout_metrics(model: TinySwa, data: torch.Tensor, ctx: int, batch: int = 32) -> dict[str, float]:
    """Bits per byte of the main head (every target once, EOS separators included: 1 per document),
    and top-1 accuracy of the main head (token t+1) and the MTP head (token t+2, teacher-forced)."""
    x, y, valid = eval_chunks(data, ctx)
    nll_sum, count, main_hits, mtp_hits, mtp_count = 0.0, 0, 0, 0, 0
    for i in range(0, x.shape[0], batch):
        xb, yb, vb = x[i : i + batch], y[i : i + batch], valid[i : i + batch]
        logits, mtp_logits = model(xb, fast=False)
        nll = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), yb.reshape(-1), reduction="none")
        m = vb.reshape(-1)
        nll_sum += nll[m].sum().item()
        count += int(m.sum().item())
        main_hits += int(((logits.argmax(-1) == yb) & vb).sum().item())
        mv = vb[:, 1:]
        mtp_hits += int(((mtp_logits.argmax(-1) == yb[:, 1:]) & mv).sum().item())
        mtp_count += int(mv.sum().item())
    return {"bits_per_byte": nll_sum / count / LN2, "top1_main": main_hits / count, "top1_mtp_t_plus_2": mtp_hits / mtp_count}


@torch.no_grad()
def greedy(model: TinySwa, prompts: torch.Tensor, n_new: int) -> torch.Tensor:
    """prompts [B, P] (BOS first) → [B, P + n_new], plain greedy, full recompute each step (exact path)."""
    seq = prompts
    for _ in range(n_new):
        logits = model.logits_from_hidden(model.hidden(seq, fast=False)[:, -1])
        seq = torch.cat([seq, logits.argmax(-1, keepdim=True)], dim=1)
    return seq


@torch.no_grad()
def mtp_acceptance(model: TinySwa, prompts: torch.Tensor, n_new: int, k: int) -> dict[str, float]:
    """Mean acceptance length of greedy chained MTP drafting verified by the target (greedy).

    Greedy verification emits exactly the target's greedy continuation, so we compute that continuation
    once (`greedy`), take the target hidden states of the whole sequence in one causal forward (equal to
    what incremental verification produces), and replay the speculative loop: with L tokens committed,
    the target's hidden state is known up to position L-2 (the last verified position, whose logits gave
    token L-1); the MTP head drafts d1..dk from (h[L-2], tok[L-1]), chaining g; the verifier accepts the
    longest prefix of drafts equal to the greedy tokens, then adds its own bonus token. Tokens emitted
    per verification step = accepted + 1. Only full steps (all k drafts checkable) are counted."""
    seq = greedy(model, prompts, n_new)
    h = model.hidden(seq, fast=False)
    b, total = seq.shape
    rows = torch.arange(b, device=seq.device)
    committed = torch.full((b,), prompts.shape[1] + 1, dtype=torch.int64, device=seq.device)  # prefill emits 1
    emitted_sum, steps = 0, 0
    per_position_hits = [0] * k
    while True:
        active = committed + k <= total  # all k drafted positions exist in the greedy sequence
        if not bool(active.any()):
            break
        idx = rows[active]
        length = committed[active]
        hidden = h[idx, length - 2]
        token = seq[idx, length - 1]
        accepted = torch.zeros_like(length)
        still = torch.ones_like(length, dtype=torch.bool)
        for j in range(k):
            logits, hidden = model.mtp_step(hidden, token)
            token = logits.argmax(-1)
            hit = token == seq[idx, length + j]
            still = still & hit
            per_position_hits[j] += int(still.sum().item())
            accepted += still.long()
        emitted = accepted + 1
        committed[idx] = length + emitted
        emitted_sum += int(emitted.sum().item())
        steps += int(idx.numel())
    return {
        "k": k,
        "mean_acceptance_length": emitted_sum / steps,
        "verification_steps": steps,
        # fraction of verification steps in which draft j (1-based) was accepted
        "accept_rate_by_draft_position": [hits / steps for hits in per_position_hits],
    }


def prompts_from_text(data: torch.Tensor, n: int, length: int) -> torch.Tensor:
    """n prompts of `length` ids (BOS + length-1 bytes) at evenly spaced offsets of a held-out stream."""
    span = data.numel() - length
    offsets = [span * i // n for i in range(n)]
    rows = [torch.cat([torch.tensor([BOS], device=data.device), data[o : o + length - 1]]) for o in offsets]
    return torch.stack(rows)
