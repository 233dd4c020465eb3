"""Golden logits for the cross-implementation test (docs/model-format.md, "golden.safetensors").

For each prompt n: prompt_{n} (I64 ids, BOS first), logits_{n} ([len, V] F32, every position) and
mtp_logits_{n} ([len-1, V] F32: row t = MTP head on (h_t, prompt[t+1]), i.e. a guess for token t+2).
Computed in fp32 from the BF16-stored weights upcast to fp32, exact attention, no FP8, one prompt at a
time (no padding). We also recompute in float64 and report the largest |fp32 − fp64| so that the
tolerance of the TypeScript test can be judged against the noise fp32 itself carries."""

from __future__ import annotations

import copy

import torch

from model import TinySwa


@torch.no_grad()
def golden_tensors(model: TinySwa, prompts: list[torch.Tensor]) -> tuple[dict[str, torch.Tensor], float]:
    model64 = copy.deepcopy(model).double()
    tensors: dict[str, torch.Tensor] = {}
    worst = 0.0
    for n, ids in enumerate(prompts):
        batch = ids[None, :]
        logits, mtp_logits = model(batch, fast=False)
        logits64, mtp64 = model64(batch, fast=False)
        worst = max(worst, (logits.double() - logits64).abs().max().item(), (mtp_logits.double() - mtp64).abs().max().item())
        tensors[f"prompt_{n}"] = ids.cpu().to(torch.int64)
        tensors[f"logits_{n}"] = logits[0].float().cpu()
        tensors[f"mtp_logits_{n}"] = mtp_logits[0].float().cpu()
    return tensors, worst
