"""Self-checks of the training code, run before training (seconds; CPU or GPU):

1. the safetensors writer/reader round-trips BF16, F32 (0-dim too) and I64 bit-exactly;
2. the fused training attention (SDPA, where available) equals the exact path (fp32, no autocast);
3. a sliding layer ignores keys outside the window: in a one-layer sliding model, changing token 0
   changes the output at position window-1 but leaves every position ≥ window bit-identical;
4. the replayed MTP acceptance (evaluate.mtp_acceptance) equals a literal speculative-decoding loop
   that drafts, runs the target on the drafts and accepts the matching prefix.

  python3 training/selftest.py [--device cuda]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

import st_io  # noqa: E402
from evaluate import mtp_acceptance  # noqa: E402
from model import BOS, Config, TinySwa, init_weights  # noqa: E402


def small_config(layer_types: list[str]) -> Config:
    return Config(hidden_size=64, intermediate_size=96, num_hidden_layers=len(layer_types), num_attention_heads=4,
                  num_key_value_heads=2, head_dim=16, query_pre_attn_scalar=16, sliding_window=8, layer_types=layer_types)


def random_model(cfg: Config, seed: int, device: torch.device) -> TinySwa:
    model = TinySwa(cfg)
    init_weights(model, seed)
    gen = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():  # non-zero norm weights so the (1 + w) path is exercised
        for name, p in model.named_parameters():
            if name.endswith("norm.weight"):
                p.copy_(torch.randn(p.shape, generator=gen) * 0.3)
            elif name == "model.embed_tokens.weight":
                p.mul_(4.0)  # sharper logits: fewer exact ties in the greedy checks
    return model.to(device).eval()


def check_safetensors() -> None:
    tensors = {"a": torch.randn(3, 5).to(torch.bfloat16), "b": torch.tensor(0.123, dtype=torch.float32),
               "c": torch.arange(7, dtype=torch.int64), "d": torch.randn(2, 2)}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.safetensors"
        st_io.save(path, tensors)
        back = st_io.load(path)
    for name, t in tensors.items():
        assert back[name].dtype == t.dtype and back[name].shape == t.shape, name
        assert torch.equal(back[name], t), name
    print("ok safetensors round trip")


@torch.no_grad()
def check_fast_equals_exact(device: torch.device) -> None:
    model = random_model(small_config(["sliding_attention", "full_attention"]), 7, device)
    ids = torch.randint(0, 256, (3, 40), generator=torch.Generator().manual_seed(3)).to(device)
    exact = model.hidden(ids, fast=False)
    fast = model.hidden(ids, fast=True)
    gap = (exact - fast).abs().max().item()
    assert gap < 1e-4, f"fused attention differs from exact by {gap}"
    print(f"ok fused attention == exact (max gap {gap:.2g})")


@torch.no_grad()
def check_window(device: torch.device) -> None:
    cfg = small_config(["sliding_attention"])
    model = random_model(cfg, 11, device)
    ids = torch.randint(0, 256, (1, 30), generator=torch.Generator().manual_seed(5)).to(device)
    other = ids.clone()
    other[0, 0] = (ids[0, 0] + 1) % 256
    a, b = model.hidden(ids), model.hidden(other)
    w = cfg.sliding_window
    # position p sees keys p-(w-1)..p: position w-1 still sees key 0, position w no longer does
    assert (a[0, w - 1] - b[0, w - 1]).abs().max().item() > 0, "position window-1 should see key 0"
    assert torch.equal(a[0, w:], b[0, w:]), "a sliding layer saw a key outside its window"
    print("ok sliding window sees exactly `window` keys")


@torch.no_grad()
def literal_speculative(model: TinySwa | NoisyOracleDrafter, prompt: torch.Tensor, n_new: int, k: int) -> tuple[list[int], int, int]:
    def logits_hidden(seq: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
        h = model.hidden(torch.tensor([seq], device=prompt.device))[0]
        return model.logits_from_hidden(h), h

    seq = prompt.tolist()
    total = len(seq) + n_new
    logits, h = logits_hidden(seq)
    seq.append(int(logits[-1].argmax()))  # prefill emits one token
    emitted_sum = steps = 0
    while len(seq) + k <= total:
        hidden, token, drafts = h[len(seq) - 2][None], torch.tensor([seq[-1]], device=prompt.device), []
        for _ in range(k):
            draft_logits, hidden = model.mtp_step(hidden, token)
            token = draft_logits.argmax(-1)
            drafts.append(int(token[0]))
        logits, _ = logits_hidden(seq + drafts)
        preds = logits[len(seq) - 1 : len(seq) - 1 + k + 1].argmax(-1).tolist()
        accepted = 0
        while accepted < k and drafts[accepted] == preds[accepted]:
            accepted += 1
        emitted = drafts[:accepted] + [preds[accepted]]
        seq += emitted
        emitted_sum += len(emitted)
        steps += 1
        logits, h = logits_hidden(seq)
    return seq, emitted_sum, steps


class NoisyOracleDrafter:
    """A target model plus a drafter that knows the target: its "hidden state" carries the position and
    the ids so far, so a draft step can run the target itself and return the target's greedy token,
    except at pseudo-random (position, token) pairs where it returns a wrong one. Acceptance lengths
    then spread over 1..k+1, and any slip in the replay's bookkeeping (which hidden state, which
    token, where the bonus goes) changes the result."""

    def __init__(self, base: TinySwa, width: int) -> None:
        self.base = base
        self.width = width
        self.d = base.cfg.hidden_size

    def hidden(self, ids: torch.Tensor, fast: bool = False) -> torch.Tensor:
        b, t = ids.shape
        h = self.base.hidden(ids, fast)
        extra = torch.full((b, t, 1 + self.width), -1.0, device=ids.device)
        for p in range(t):
            extra[:, p, 0] = p
            extra[:, p, 1 : p + 2] = ids[:, : p + 1].to(extra.dtype)
        return torch.cat([h, extra], dim=-1)

    def logits_from_hidden(self, h: torch.Tensor) -> torch.Tensor:
        return self.base.logits_from_hidden(h[..., : self.d].contiguous())

    def mtp_step(self, h: torch.Tensor, next_ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits = torch.full((h.shape[0], self.base.cfg.vocab_size), -1.0, device=h.device)
        g = h.clone()
        for r in range(h.shape[0]):
            pos = int(h[r, self.d])
            prefix = [int(v) for v in h[r, self.d + 1 : self.d + 2 + pos]] + [int(next_ids[r])]
            out = self.base.logits_from_hidden(self.base.hidden(torch.tensor([prefix], device=h.device))[0, -1])
            token = int(out.argmax())
            if (pos * 7919 + int(next_ids[r]) * 31) % 10 < 3:
                token = (token + 1) % 256
            logits[r, token] = 1.0
            g[r, self.d] = pos + 1
            g[r, self.d + 2 + pos] = float(next_ids[r])
        return logits, g


@torch.no_grad()
def check_acceptance_replay(device: torch.device) -> None:
    base = random_model(small_config(["sliding_attention", "full_attention"]), 13, device)
    model = NoisyOracleDrafter(base, width=64)
    gen = torch.Generator().manual_seed(9)
    prompts = torch.cat([torch.full((3, 1), BOS), torch.randint(0, 256, (3, 9), generator=gen)], dim=1).to(device)
    k, n_new = 3, 30
    emitted = steps = 0
    for row in prompts:
        _, e, s = literal_speculative(model, row, n_new, k)
        emitted += e
        steps += s
    replay = mtp_acceptance(model, prompts, n_new, k)
    assert replay["verification_steps"] == steps, (replay, steps)
    assert abs(replay["mean_acceptance_length"] - emitted / steps) < 1e-12, (replay, emitted / steps)
    assert 1.5 < emitted / steps < k + 1, "the check needs a mix of accepted and rejected drafts"
    print(f"ok MTP acceptance replay == literal speculative loop ({emitted / steps:.3f} over {steps} steps)")


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device(p.parse_args().device)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    check_safetensors()
    check_fast_equals_exact(device)
    check_window(device)
    check_acceptance_replay(device)
    return 0


if __name__ == "__main__":
    sys.exit(main())
