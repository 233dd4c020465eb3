"""Recompute models/tiny-swa/golden.safetensors from the committed checkpoint (through its HF index,
as any loader would) and report the largest difference; also checks that tiny-swa-qscale loads the
same weights through its symlinked shard plus its own q/k/v scales. CPU is fine (seconds).

  python3 training/check_golden.py [models]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

import st_io  # noqa: E402
from model import Config, TinySwa  # noqa: E402

TOLERANCE = 1e-4  # two fp32 implementations of the same sums (CPU here, GPU there)


def config_from_hf(hf: dict) -> Config:
    names = ["vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
             "num_key_value_heads", "head_dim", "sliding_window", "rope_theta", "rope_local_base_freq",
             "query_pre_attn_scalar", "rms_norm_eps", "layer_types"]
    return Config(**{n: hf[n] for n in names})


@torch.no_grad()
def main() -> int:
    models = Path(sys.argv[1] if len(sys.argv) > 1 else "models")
    tiny, qscale = models / "tiny-swa", models / "tiny-swa-qscale"
    cfg = config_from_hf(json.loads((tiny / "config.json").read_text()))
    tensors = st_io.load_sharded(tiny)
    weights = {k: v.float() for k, v in tensors.items() if not k.endswith("_scale")}
    model = TinySwa(cfg)
    model.load_state_dict(weights, strict=True)
    model.eval()
    golden = st_io.load(tiny / "golden.safetensors")
    worst = 0.0
    n = 0
    while f"prompt_{n}" in golden:
        logits, mtp_logits = model(golden[f"prompt_{n}"][None], fast=False)
        worst = max(worst, (logits[0] - golden[f"logits_{n}"]).abs().max().item(),
                    (mtp_logits[0] - golden[f"mtp_logits_{n}"]).abs().max().item())
        n += 1
    print(f"golden: {n} prompts, max |recomputed − stored| = {worst:.3g} (torch {torch.__version__}, cpu)")

    q_tensors = st_io.load_sharded(qscale)
    same = all(torch.equal(q_tensors[k], tensors[k]) for k in tensors)
    q_names = sorted(k for k in q_tensors if k.endswith("q_scale"))
    print(f"tiny-swa-qscale: weights identical: {same}; {len(q_names)} q_scale tensors; "
          f"k/v scales identical: {all(torch.equal(q_tensors[k], tensors[k]) for k in tensors if k.endswith('_scale'))}")
    ok = worst <= TOLERANCE and same and len(q_names) == cfg.num_hidden_layers and n > 0
    print("ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
