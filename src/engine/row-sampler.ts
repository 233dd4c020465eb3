/**
 * Per-request token choice for plain decoding and for verification (spec/verify.ts RowSampler):
 * greedy (argmax, ties to the lowest id) or sampled (temperature, top-k, top-p; one uniform draw per
 * decision from the request's own seeded generator). `min_tokens`: until that many tokens exist the
 * stop tokens (EOS unless ignore_eos, and stop_token_ids) are masked out, as vLLM's min-tokens logits
 * processor does. Log-probabilities reported to clients are taken from the raw logits (vLLM's default
 * `raw_logprobs`), never from the masked or tempered ones. Sampling penalties (sampling-penalties.ts),
 * when given, transform each row before it is masked, tempered and chosen from.
 */
import type { Rng } from '../core/rng.js';
import type { RowSampler } from './spec/verify.js';
import { argmax, sample, type SamplingParams } from './sampling.js';

export interface RowSamplerOptions {
  sampling: SamplingParams;
  rng: Rng;
  minTokens: number;
  /** Ids masked while fewer than minTokens tokens exist. */
  stopIds: readonly number[];
  /** The row with the request's penalties applied, for the token at output position `outIndex`. */
  penalize?: (logits: Float32Array, outIndex: number) => Float32Array;
}

/** Kept token ids (most likely first) and their probabilities after temperature, top-k and top-p. */
function distribution(logits: Float32Array, p: SamplingParams): { ids: number[]; probs: number[] } {
  const ids = Array.from({ length: logits.length }, (_, i) => i).filter((i) => logits[i] > -Infinity);
  ids.sort((a, b) => logits[b] - logits[a] || a - b);
  let kept = p.topK > 0 ? ids.slice(0, p.topK) : ids;
  const max = logits[kept[0]] / p.temperature;
  let weights = kept.map((id) => Math.exp(logits[id] / p.temperature - max));
  const total = weights.reduce((a, b) => a + b, 0);
  if (p.topP < 1) {
    let cum = 0;
    let keep = 0;
    while (keep < kept.length && cum < p.topP * total) cum += weights[keep++];
    keep = Math.max(1, keep);
    kept = kept.slice(0, keep);
    weights = weights.slice(0, keep);
  }
  const sum = weights.reduce((a, b) => a + b, 0);
  return { ids: kept, probs: weights.map((w) => w / sum) };
}

function draw(ids: number[], probs: number[], u: number): number {
  let cum = 0;
  for (let i = 0; i < ids.length; i++) {
    cum += probs[i];
    if (u < cum) return ids[i];
  }
  return ids[ids.length - 1];
}

export function createRowSampler(o: RowSamplerOptions): RowSampler {
  const masked = (raw: Float32Array, outIndex: number): Float32Array => {
    const logits = o.penalize ? o.penalize(raw, outIndex) : raw;
    if (outIndex >= o.minTokens || o.stopIds.length === 0) return logits;
    const copy = Float32Array.from(logits);
    for (const id of o.stopIds) if (id >= 0 && id < copy.length) copy[id] = -Infinity;
    return copy;
  };
  if (o.sampling.temperature <= 0)
    return {
      pick: (logits, i) => argmax(masked(logits, i)),
      accept: (logits, i, draft) => argmax(masked(logits, i)) === draft,
      recover: (logits, i) => argmax(masked(logits, i)),
    };
  return {
    pick: (logits, i) => sample(masked(logits, i), o.sampling, o.rng.next()),
    accept: (logits, i, draft) => {
      const d = distribution(masked(logits, i), o.sampling);
      const at = d.ids.indexOf(draft);
      // draft probability 1 (one-hot drafts): accept with probability p_target(draft)
      return at >= 0 && o.rng.next() < d.probs[at];
    },
    recover: (logits, i, draft) => {
      const d = distribution(masked(logits, i), o.sampling);
      const at = d.ids.indexOf(draft);
      if (at >= 0 && d.ids.length > 1) {
        d.ids.splice(at, 1);
        const removed = d.probs.splice(at, 1)[0];
        for (let j = 0; j < d.probs.length; j++) d.probs[j] /= 1 - removed;
      }
      return draw(d.ids, d.probs, o.rng.next());
    },
  };
}
