"""Evaluate, calibrate and export a trained tiny-swa into models/tiny-swa and models/tiny-swa-qscale.

  python3 training/export.py --train-dir runs/train --models-dir models

Reads <train-dir>/weights-bf16.safetensors and train-log.json (from train.py). Everything here runs
on the BF16 weights upcast to fp32 with the exact forward and TF32 off, so it means the same on a GPU
or a CPU. Writes, per docs/model-format.md: config.json, the weights shard, the scales shard, the HF
index, generation_config.json, README.md (model card) and golden.safetensors; the qscale variant gets
its own config/index/scales and a symlink to the weights shard. Also writes <train-dir>/summary.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

import st_io  # noqa: E402
from calibrate import calibrate  # noqa: E402
from corpus import read_documents, stream  # noqa: E402
from evaluate import greedy, heldout_metrics, mtp_acceptance, prompts_from_text  # noqa: E402
from golden import golden_tensors  # noqa: E402
from model import BOS, EOS, Config, TinySwa  # noqa: E402
from model_card import render_card  # noqa: E402

WEIGHTS_SHARD = "model-00001-of-00002.safetensors"
SCALES_SHARD = "model-00002-of-00002.safetensors"
SAMPLE_PROMPTS = ["Call me Ishmael.", "Fellow-Citizens of the Senate and House of Representatives:", "The whale"]
# (length in ids including BOS, byte offset into data/heldout-prose.txt); None = the literal prompt below.
# 129 puts the last query exactly one past the window (it no longer sees BOS); 400 is well past it.
GOLDEN_PROMPTS: list[tuple[int, int | None]] = [(17, None), (40, 0), (129, 20_000), (200, 60_000), (400, 120_000)]
GOLDEN_LITERAL = "Call me Ishmael."


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--train-dir", type=Path, required=True)
    p.add_argument("--models-dir", type=Path, default=Path("models"))
    p.add_argument("--corpus", type=Path, default=Path("training/data/corpus.jsonl"))
    p.add_argument("--heldout", type=Path, default=Path("data/heldout-prose.txt"))
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--ctx", type=int, default=512)
    p.add_argument("--sample-new", type=int, default=200)
    p.add_argument("--accept-prompts", type=int, default=64)
    p.add_argument("--accept-prompt-len", type=int, default=128)
    p.add_argument("--accept-new", type=int, default=256)
    p.add_argument("--accept-k", type=int, default=7)
    p.add_argument("--val-limit", type=int, default=0, help="use only the first N validation ids (smoke tests)")
    return p.parse_args()


def hf_config(cfg: Config) -> dict:
    return {
        "architectures": ["FaultlineTinySwaForCausalLM"],
        "model_type": "faultline_tiny_swa",
        "vocab_size": cfg.vocab_size, "bos_token_id": BOS, "eos_token_id": EOS,
        "hidden_size": cfg.hidden_size, "intermediate_size": cfg.intermediate_size,
        "num_hidden_layers": cfg.num_hidden_layers, "num_attention_heads": cfg.num_attention_heads,
        "num_key_value_heads": cfg.num_key_value_heads, "head_dim": cfg.head_dim,
        "layer_types": list(cfg.layer_types), "sliding_window": cfg.sliding_window,
        "rope_theta": cfg.rope_theta, "rope_local_base_freq": cfg.rope_local_base_freq,
        "query_pre_attn_scalar": cfg.query_pre_attn_scalar, "rms_norm_eps": cfg.rms_norm_eps,
        "final_logit_softcapping": None, "max_position_embeddings": 2048, "tie_word_embeddings": True,
        "torch_dtype": "bfloat16", "num_nextn_predict_layers": 1,
        "quantization_config": {
            "quant_method": "compressed-tensors",
            "kv_cache_scheme": {"num_bits": 8, "type": "float", "strategy": "tensor", "dynamic": False, "symmetric": True},
        },
    }


def load_model(weights: dict[str, torch.Tensor], cfg: Config, device: torch.device) -> TinySwa:
    model = TinySwa(cfg)
    state = {name: t.to(torch.float32) for name, t in weights.items()}  # exact upcast of BF16
    model.load_state_dict(state, strict=True)
    return model.to(device).eval()


def scale_tensors(scales: dict[str, list[float]], kinds: str) -> dict[str, torch.Tensor]:
    out = {}
    for i in range(len(scales["k_scale"])):
        for kind in kinds:
            out[f"model.layers.{i}.self_attn.{kind}_scale"] = torch.tensor(scales[f"{kind}_scale"][i], dtype=torch.float32)
    return out


def write_variant(directory: Path, cfg: Config, weights: dict[str, torch.Tensor] | None, weights_bytes: int,
                  weight_names: list[str], scales: dict[str, torch.Tensor]) -> int:
    """Writes config, index and scales shard; the weights shard itself when `weights` is given,
    otherwise a relative symlink to ../tiny-swa's. Returns the data bytes of the weights shard."""
    directory.mkdir(parents=True, exist_ok=True)
    if weights is not None:
        weights_bytes = st_io.save(directory / WEIGHTS_SHARD, weights, {"format": "pt"})
    else:
        link = directory / WEIGHTS_SHARD
        if link.is_symlink() or link.exists():
            link.unlink()
        os.symlink(f"../tiny-swa/{WEIGHTS_SHARD}", link)
    scales_bytes = st_io.save(directory / SCALES_SHARD, scales, {"format": "pt"})
    weight_map = {name: WEIGHTS_SHARD for name in weight_names}
    weight_map.update({name: SCALES_SHARD for name in scales})
    index = {"metadata": {"total_size": weights_bytes + scales_bytes}, "weight_map": weight_map}
    (directory / "model.safetensors.index.json").write_text(json.dumps(index, indent=2) + "\n")
    (directory / "config.json").write_text(json.dumps(hf_config(cfg), indent=2) + "\n")
    generation = {"bos_token_id": BOS, "eos_token_id": EOS, "do_sample": False, "max_new_tokens": 256}
    (directory / "generation_config.json").write_text(json.dumps(generation, indent=2) + "\n")
    return weights_bytes


def decode(ids: list[int]) -> str:
    out = []
    for t in ids:
        if t == EOS:
            break
        if t < 256:
            out.append(t)
    return bytes(out).decode("utf-8", errors="replace")


def golden_prompts(heldout: bytes, device: torch.device) -> list[torch.Tensor]:
    prompts = []
    for length, offset in GOLDEN_PROMPTS:
        body = GOLDEN_LITERAL.encode("utf-8") if offset is None else heldout[offset : offset + length - 1]
        ids = [BOS] + list(body)
        if len(ids) != length:
            raise SystemExit(f"golden prompt of {length} ids came out as {len(ids)}")
        prompts.append(torch.tensor(ids, dtype=torch.int64, device=device))
    return prompts


def main() -> int:
    args = parse_args()
    t0 = time.time()
    device = torch.device(args.device)
    # exact fp32: no TF32 anywhere in evaluation, calibration or the golden
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    if hasattr(torch, "set_float32_matmul_precision"):
        torch.set_float32_matmul_precision("highest")

    log = json.loads((args.train_dir / "train-log.json").read_text())
    cfg = Config(**log["config"])
    weights = st_io.load(args.train_dir / "weights-bf16.safetensors")
    model = load_model(weights, cfg, device)

    val = stream(read_documents(args.corpus, "val")).to(device)
    if args.val_limit:
        val = val[: args.val_limit]
    metrics = heldout_metrics(model, val, args.ctx)
    print(f"held-out (exact fp32 forward on BF16 weights): {json.dumps(metrics)}  [{time.time() - t0:.1f} s]", flush=True)

    scales = calibrate(model, val, args.ctx)
    for kind in "qkv":
        print(f"{kind}_scale per layer: {[f'{s:.6g}' for s in scales[f'{kind}_scale']]}", flush=True)

    samples = []
    for text in SAMPLE_PROMPTS:
        ids = torch.tensor([[BOS] + list(text.encode("utf-8"))], device=device)
        out = greedy(model, ids, args.sample_new)[0].tolist()
        samples.append({"prompt": text, "continuation": decode(out[ids.shape[1] :])})
        print(f"sample: {text!r} → {samples[-1]['continuation']!r}", flush=True)

    accept_prompts = prompts_from_text(val, args.accept_prompts, args.accept_prompt_len)
    acceptance = mtp_acceptance(model, accept_prompts, args.accept_new, args.accept_k)
    acceptance.update(prompts=args.accept_prompts, prompt_ids=args.accept_prompt_len, new_tokens=args.accept_new)
    print(f"MTP acceptance: {json.dumps(acceptance)}  [{time.time() - t0:.1f} s]", flush=True)

    heldout = args.heldout.read_bytes()
    golden, fp64_gap = golden_tensors(model, golden_prompts(heldout, device))
    print(f"golden: {len(golden) // 3} prompts; max |fp32 − fp64| over logits = {fp64_gap:.3g}", flush=True)

    tiny = args.models_dir / "tiny-swa"
    qscale = args.models_dir / "tiny-swa-qscale"
    names = list(weights)
    weights_bytes = write_variant(tiny, cfg, weights, 0, names, scale_tensors(scales, "kv"))
    write_variant(qscale, cfg, None, weights_bytes, names, scale_tensors(scales, "qkv"))
    st_io.save(tiny / "golden.safetensors", golden, {"format": "pt", "dtype": "fp32 forward of BF16 weights"})

    summary = {"heldout": metrics, "scales": scales, "samples": samples, "mtp_acceptance": acceptance,
               "golden_prompt_lengths": [int(golden[f"prompt_{n}"].numel()) for n in range(len(GOLDEN_PROMPTS))],
               "golden_fp32_vs_fp64_max_abs": fp64_gap, "export_seconds": round(time.time() - t0, 1),
               "export_device": str(device), "torch": torch.__version__, "sample_new": args.sample_new}
    summary["file_bytes"] = {p.name: p.stat().st_size for p in sorted(tiny.iterdir()) if p.is_file()}
    (args.train_dir / "summary.json").write_text(json.dumps(summary, indent=1))
    (tiny / "README.md").write_text(render_card(log, summary, "tiny-swa"))
    (qscale / "README.md").write_text(render_card(log, summary, "tiny-swa-qscale"))
    print(f"exported {tiny} and {qscale} in {time.time() - t0:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
