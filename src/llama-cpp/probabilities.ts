/**
 * node-llama-cpp reports a next-token distribution as a Map of probabilities (float32 softmax of the
 * raw logits under greedy sampling: research llama-cpp-engine.md §3). The server's logprob code works
 * on logit rows, so the distribution becomes one: log p per token (softmax is shift-invariant, so
 * log p is a row of logits of the same distribution). A probability that underflowed to 0 gets
 * vLLM's finite stand-in for −∞, so JSON never carries a null.
 */
import { logSoftmax, topLogprobs } from '../engine/sampling.js';
import type { EmittedToken, PromptLogprob } from '../engine/sequence.js';

export const UNDERFLOW_LOGPROB = -9999;

export function logitsFromProbabilities(
  probabilities: ReadonlyMap<number, number>,
  vocabSize: number,
): Float32Array {
  const row = new Float32Array(vocabSize).fill(UNDERFLOW_LOGPROB);
  for (const [id, p] of probabilities) if (id >= 0 && id < vocabSize && p > 0) row[id] = Math.log(p);
  return row;
}

export function emittedToken(row: Float32Array, id: number, k: number): EmittedToken {
  return { id, logprob: logSoftmax(row)[id], top: k > 0 ? topLogprobs(row, k) : [] };
}

/** One prompt_logprobs entry: the prompt token scored by the row before it; rank as vLLM counts it. */
export function promptEntry(row: Float32Array, id: number, k: number): PromptLogprob {
  const lp = logSoftmax(row);
  let rank = 1;
  for (let i = 0; i < lp.length; i++) if (lp[i] > lp[id]) rank++;
  const n = k === -1 ? row.length : k;
  return { id, logprob: lp[id], rank, top: n > 0 ? topLogprobs(row, n) : [] };
}
