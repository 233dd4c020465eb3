/** Builders for oracle tests: generations and scores from compact descriptions. */
import type { Generation, GeneratedStep, ScoredToken, TopLogprob } from './types.js';

/** Log-softmax of a logit vector. */
export function logSoftmax(logits: readonly number[]): number[] {
  const m = Math.max(...logits);
  const lse = m + Math.log(logits.reduce((s, x) => s + Math.exp(x - m), 0));
  return logits.map((x) => x - lse);
}

/** The k best (token, logprob) pairs of a logprob vector, best first; ties by lower id. */
export function topK(logprobs: readonly number[], k: number): TopLogprob[] {
  return logprobs
    .map((logprob, token) => ({ token, logprob }))
    .sort((a, b) => b.logprob - a.logprob || a.token - b.token)
    .slice(0, k);
}

/** A greedy step from a full logprob vector. */
export function greedyStep(logprobs: readonly number[], k: number): GeneratedStep {
  const top = topK(logprobs, k);
  return { token: top[0].token, logprob: top[0].logprob, top };
}

/** A step that chose `token`, with explicit top-k entries [token, logprob][]. */
export function step(token: number, top: [number, number][]): GeneratedStep {
  const entries = top.map(([t, lp]) => ({ token: t, logprob: lp }));
  const own = entries.find((e) => e.token === token);
  return { token, logprob: own ? own.logprob : -99, top: entries };
}

export function generation(steps: GeneratedStep[]): Generation {
  return { tokens: steps.map((s) => s.token), steps };
}

/** A confident step: `token` at logprob ~0, alternatives far below. */
export function sure(token: number): GeneratedStep {
  return step(token, [
    [token, -0.01],
    [(token + 1) % 256, -5],
    [(token + 2) % 256, -6],
  ]);
}

/** The reference's score of a token. */
export function scored(
  token: number,
  logprob: number,
  rank: number,
  topLogprob = logprob,
  topToken = token,
): ScoredToken {
  return { token, logprob, rank, topLogprob, topToken };
}
