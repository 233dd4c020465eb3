/**
 * Single-sequence generation on top of the engine step API: prefill the prompt in one step,
 * then one token per step. Also `computeLogits`, the exact full-sequence logits used by the
 * golden check (fp32 weights math, fp32 KV, reference attention).
 */
import { createRng } from '../core/rng.js';
import { createReferenceBackend } from './attention/reference-backend.js';
import { Engine } from './engine.js';
import type { Model } from './model.js';
import { logSoftmax, sample, topLogprobs, type SamplingParams, type TokenLogprob } from './sampling.js';

export interface GenerateOptions {
  maxTokens: number;
  sampling: SamplingParams;
  /** Seed of the sampling RNG (only used when temperature > 0). */
  seed: number;
  /** Top-k logprobs per generated position (0 = none). */
  logprobs: number;
  /** Stop after EOS (default true). */
  stopAtEos?: boolean;
  /** Sequence id in the engine (default 0); released at the end. */
  seqId?: number;
}

export interface GeneratedToken {
  id: number;
  /** log-probability of this token under the raw logits. */
  logprob: number;
  top: TokenLogprob[];
}

export interface GenerateResult {
  promptIds: number[];
  tokens: GeneratedToken[];
  finishReason: 'length' | 'eos';
}

export function generate(engine: Engine, promptIds: readonly number[], o: GenerateOptions): GenerateResult {
  const seqId = o.seqId ?? 0;
  const rng = createRng(o.seed);
  const eos = engine.model.config.eosTokenId;
  const V = engine.model.config.vocabSize;
  const tokens: GeneratedToken[] = [];
  let finishReason: GenerateResult['finishReason'] = 'length';
  try {
    let step = engine.forward([{ seqId, tokens: promptIds }])[0];
    while (tokens.length < o.maxTokens) {
      const logits = step.logits.subarray((step.rows - 1) * V, step.rows * V);
      const id = sample(logits, o.sampling, o.sampling.temperature > 0 ? rng.next() : 0);
      tokens.push({ id, logprob: logSoftmax(logits)[id], top: o.logprobs > 0 ? topLogprobs(logits, o.logprobs) : [] });
      if (id === eos && o.stopAtEos !== false) {
        finishReason = 'eos';
        break;
      }
      if (tokens.length >= o.maxTokens) break;
      step = engine.forward([{ seqId, tokens: [id] }])[0];
    }
  } finally {
    engine.release(seqId);
  }
  return { promptIds: [...promptIds], tokens, finishReason };
}

/**
 * Logits [len, V] and hidden states [len, d] (before the final norm) for every position of `ids`,
 * computed exactly: fp32 weights math with float64 accumulation (JS kernels), fp32 KV, reference attention — the golden check's mode.
 */
export function exactForward(model: Model, ids: readonly number[]): { logits: Float32Array; hidden: Float32Array } {
  const engine = new Engine(model, {
    precision: 'fp32',
    kvDtype: 'fp32',
    pageSize: 16,
    cacheKind: 'contiguous',
    backend: createReferenceBackend(),
    kernels: 'js',
  });
  const { logits, hidden } = engine.forward([{ seqId: 0, tokens: ids }])[0];
  return { logits, hidden };
}

export function computeLogits(model: Model, ids: readonly number[]): Float32Array {
  return exactForward(model, ids).logits;
}
