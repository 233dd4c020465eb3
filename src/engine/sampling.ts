/**
 * Pure samplers: logits and a uniform random number in, a token id out. No hidden state, no
 * global RNG — the caller owns the generator (core/rng.ts) and passes `u` in, so a seeded run
 * is reproducible and a test can pick u directly.
 * Ties always go to the lowest token id (as torch.argmax does).
 */

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

/** Draws a token: temperature, then top-k, then top-p, then inverse CDF at u ∈ [0, 1). */
export function sample(logits: ArrayLike<number>, p: SamplingParams, u: number): number {
  if (p.temperature <= 0) return argmax(logits);
  const scaled = Array.from(logits, (x) => x / p.temperature);
  let ids = rankedIds(scaled);
  if (p.topK > 0) ids = ids.slice(0, p.topK);
  const max = scaled[ids[0]];
  const weights = ids.map((id) => Math.exp(scaled[id] - max));
  const total = weights.reduce((a, b) => a + b, 0);
  let keep = ids.length;
  if (p.topP < 1) {
    let cum = 0;
    keep = 0;
    while (keep < ids.length && cum < p.topP * total) cum += weights[keep++];
    keep = Math.max(1, keep);
  }
  const kept = weights.slice(0, keep).reduce((a, b) => a + b, 0);
  let cum = 0;
  for (let i = 0; i < keep; i++) {
    cum += weights[i];
    if (u * kept < cum) return ids[i];
  }
  return ids[keep - 1];
}
