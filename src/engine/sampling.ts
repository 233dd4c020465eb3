/**
 * The sampler. Pure functions first: logits and a uniform random number in, a token id out — no
 * hidden state, no global RNG (the caller owns the generator, core/rng.ts, and passes `u` in, so a
 * seeded run is reproducible and a test can pick u directly); ties always go to the lowest token id
 * (as torch.argmax does). Then the per-request `createRowSampler` built on them.
 *
 * Per-request token choice for plain decoding and for verification (speculative/verify.ts
 * RowSampler): greedy (argmax) or sampled (`distribution`: the one truncation; one uniform draw per
 * decision from the request's own seeded generator). Before either, the row's logits go through the
 * request's logits processors, in order: `min_tokens` masks the stop tokens (EOS unless ignore_eos,
 * and stop_token_ids) until that many tokens exist, as vLLM's min-tokens logits processor does;
 * further processors (repetition / frequency / presence penalties) plug in through `processors`.
 * Log-probabilities reported to clients are taken from the raw logits (vLLM's default
 * `raw_logprobs`), never from the processed or tempered ones.
 */
import type { Rng } from '../core/rng.js';
import type { RowSampler } from './speculative/verify.js';

export interface SamplingParams {
  /** 0 = greedy. */
  temperature: number;
  /** Keep the k most likely tokens; 0 or -1 = off. */
  topK: number;
  /** Keep the smallest most-likely set whose probability reaches topP; 1 = off. */
  topP: number;
}

export const GREEDY: SamplingParams = { temperature: 0, topK: 0, topP: 1 };

export function argmax(logits: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < logits.length; i++) if (logits[i] > logits[best]) best = i;
  return best;
}

/** log_softmax in float64. */
export function logSoftmax(logits: ArrayLike<number>): Float64Array {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) if (logits[i] > max) max = logits[i];
  let sum = 0;
  for (let i = 0; i < logits.length; i++) sum += Math.exp(logits[i] - max);
  const lse = max + Math.log(sum);
  const out = new Float64Array(logits.length);
  for (let i = 0; i < logits.length; i++) out[i] = logits[i] - lse;
  return out;
}

/** Token ids ordered by logit, highest first; ties by lower id. */
function rankedIds(values: ArrayLike<number>): number[] {
  const ids = Array.from({ length: values.length }, (_, i) => i);
  return ids.sort((a, b) => values[b] - values[a] || a - b);
}

export interface TokenLogprob {
  id: number;
  logprob: number;
}

/** The k most likely tokens with their log-probabilities (of the raw logits). */
export function topLogprobs(logits: ArrayLike<number>, k: number): TokenLogprob[] {
  const lp = logSoftmax(logits);
  return rankedIds(lp)
    .slice(0, k)
    .map((id) => ({ id, logprob: lp[id] }));
}

/** The candidates a sampled choice draws from, most likely first, with their probabilities (summing to 1). */
export interface Distribution {
  ids: number[];
  probs: number[];
}

/**
 * The one truncation every sampled choice uses (plain decoding, draft acceptance, rejection
 * recovery): temperature, then top-k, then top-p, renormalised. Masked tokens (logit −∞) and NaN
 * logits are not candidates at all, so they never take a top-k place and are never drawn, whatever u
 * is; a row with no candidate is an error (a processor masked every token), never a silent pick.
 */
export function distribution(logits: ArrayLike<number>, p: SamplingParams): Distribution {
  const ids: number[] = [];
  for (let i = 0; i < logits.length; i++) if (logits[i] > -Infinity) ids.push(i);
  if (!ids.length) throw new RangeError('no token can be sampled: every logit is −∞ or NaN');
  ids.sort((a, b) => logits[b] - logits[a] || a - b);
  let kept = p.topK > 0 ? ids.slice(0, p.topK) : ids;
  const max = logits[kept[0]] / p.temperature;
  let weights = kept.map((id) => Math.exp(logits[id] / p.temperature - max));
  if (p.topP < 1) {
    const total = weights.reduce((a, b) => a + b, 0);
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

/** Inverse CDF at u ∈ [0, 1) over a distribution's candidates, most likely first. */
export function drawFrom(d: Distribution, u: number): number {
  let cum = 0;
  for (let i = 0; i < d.ids.length; i++) {
    cum += d.probs[i];
    if (u < cum) return d.ids[i];
  }
  return d.ids[d.ids.length - 1];
}

/** Draws a token: greedy at temperature 0, else from `distribution` at u ∈ [0, 1). */
export function sample(logits: ArrayLike<number>, p: SamplingParams, u: number): number {
  if (p.temperature <= 0) return argmax(logits);
  return drawFrom(distribution(logits, p), u);
}

/**
 * Adjusts one row's logits before the choice, at output position `outIndex` (0 = the first generated
 * token; during verification, the position the draft would take). Returns the logits to use: the
 * same array when nothing changes, else a copy (the raw row is still read for logprobs).
 */
export type LogitsProcessor = (logits: Float32Array, outIndex: number) => Float32Array;

export interface RowSamplerOptions {
  sampling: SamplingParams;
  rng: Rng;
  minTokens: number;
  /** Ids masked while fewer than minTokens tokens exist. */
  stopIds: readonly number[];
  /** Run after the min_tokens mask, in order. */
  processors?: readonly LogitsProcessor[];
}

/** vLLM's min-tokens processor: the stop ids at −∞ until `minTokens` tokens exist. */
export function minTokensProcessor(minTokens: number, stopIds: readonly number[]): LogitsProcessor {
  return (logits, outIndex) => {
    if (outIndex >= minTokens || stopIds.length === 0) return logits;
    const copy = Float32Array.from(logits);
    for (const id of stopIds) if (id >= 0 && id < copy.length) copy[id] = -Infinity;
    return copy;
  };
}

export function createRowSampler(o: RowSamplerOptions): RowSampler {
  const processors = [minTokensProcessor(o.minTokens, o.stopIds), ...(o.processors ?? [])];
  const masked = (logits: Float32Array, outIndex: number): Float32Array => processors.reduce((row, process) => process(row, outIndex), logits);
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
      return drawFrom(d, o.rng.next());
    },
  };
}
