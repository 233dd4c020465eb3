"""Corpus streams: byte ids per split, documents separated by EOS, sequences prefixed with BOS."""

from __future__ import annotations

import json
from pathlib import Path

import torch

from model import BOS, EOS


def read_documents(path: Path, split: str) -> list[dict[str, str]]:
    docs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            if d["split"] == split:
                docs.append(d)
    if not docs:
        raise SystemExit(f"{path}: no documents in split {split!r}; run training/fetch_corpus.py first")
    return docs


def stream(docs: list[dict[str, str]]) -> torch.Tensor:
    """All documents as one int64 id stream, each document's UTF-8 bytes followed by EOS."""
    ids: list[int] = []
    for d in docs:
        ids.extend(d["text"].encode("utf-8"))
        ids.append(EOS)
    return torch.tensor(ids, dtype=torch.int64)


def random_batch(data: torch.Tensor, batch: int, ctx: int, gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """x = [BOS, s[o], …, s[o+ctx-2]], y = [s[o], …, s[o+ctx-1]] for random offsets o (x, y: [batch, ctx])."""
    offsets = torch.randint(0, data.numel() - ctx, (batch,), generator=gen, device=gen.device)
    idx = offsets[:, None] + torch.arange(ctx, device=data.device)[None, :]
    y = data[idx]
    bos = torch.full((batch, 1), BOS, dtype=torch.int64, device=data.device)
    x = torch.cat([bos, y[:, :-1]], dim=1)
    return x, y


def eval_chunks(data: torch.Tensor, ctx: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Non-overlapping chunks covering every byte of `data` once as a target: x, y, valid [n, ctx].
    Each chunk starts fresh from BOS (no carried context), as the model is served."""
    n = (data.numel() + ctx - 1) // ctx
    padded = torch.full((n * ctx,), EOS, dtype=torch.int64, device=data.device)
    padded[: data.numel()] = data
    valid = torch.zeros(n * ctx, dtype=torch.bool, device=data.device)
    valid[: data.numel()] = True
    y = padded.view(n, ctx)
    bos = torch.full((n, 1), BOS, dtype=torch.int64, device=data.device)
    x = torch.cat([bos, y[:, :-1]], dim=1)
    return x, y, valid.view(n, ctx)
