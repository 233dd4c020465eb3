/**
 * One side of an in-process oracle comparison (bench/oracle.ts, bench/oracle-calibration.ts): an engine
 * built from `faultline engine serve` flags, greedy generation with top-N logprobs (through speculative
 * decoding with the MTP head when k > 0, so verification takes the spec-as-decode path), the reference's
 * prompt_logprobs for a candidate's continuation (one prefill), and prompts cut from held-out text —
 * what a probe asks of servers, without HTTP.
 */
import { createRng } from '../src/core/rng.js';
import { tokensFromArgv } from '../src/deployment/argv-token.js';
import { parseVllmArgs } from '../src/deployment/vllm-args.js';
import { Engine } from '../src/engine/engine.js';
import { ENGINE_FLAG_SPECS, resolveEngineSettings } from '../src/engine/flags.js';
import { generate } from '../src/engine/generate.js';
import type { Model } from '../src/engine/model.js';
import { GREEDY, logSoftmax } from '../src/engine/sampling.js';
import { singleSequenceEngine } from '../src/engine/single-sequence-engine.js';
import { specConfig } from '../src/engine/speculative/config.js';
import { speculativeGenerate } from '../src/engine/testing/speculative-generate.js';
import { createByteTokenizer } from '../src/engine/tokenizer.js';
import type { Generation, ScoredToken } from '../src/oracle/types.js';
import type { LengthPlan } from '../src/probe/suites.js';

export interface Side {
  engine: Engine;
  model: Model;
  /** MTP speculative tokens per step (0: plain decoding). */
  k: number;
}

/**
 * `batchVariant`: the engine's batch-variant numerics (split-K chosen by the step's row count). One
 * sequence at a time, that makes prefill (many rows) differ from a batch-invariant engine while
 * one-row decode steps do not: a benign candidate whose prompt KV carries reduction-order noise.
 */
export function engineSide(model: Model, flags: string[], k = 0, o: { batchVariant?: boolean } = {}): Side {
  const parsed = parseVllmArgs(tokensFromArgv(flags, 'argv'), { baseDir: process.cwd(), extraFlags: [...ENGINE_FLAG_SPECS] });
  const built = singleSequenceEngine(model, resolveEngineSettings(parsed.args, model.config, new Set()), { numSpeculativeTokens: k });
  const engine = o.batchVariant ? new Engine(model, { ...built.options, batchVariantNumerics: true }) : built;
  return { engine, model, k };
}

/** Greedy tokens with their top-`logprobs` alternatives. */
export function sideGeneration(s: Side, prompt: number[], maxTokens: number, seed: number, logprobs: number): Generation {
  const emitted = s.k
    ? speculativeGenerate(s.engine, prompt, { spec: specConfig('mtp', s.k), maxTokens, logprobs }).tokens
    : generate(s.engine, prompt, { maxTokens, sampling: GREEDY, seed, logprobs, stopAtEos: false }).tokens;
  const steps = emitted.map((t) => ({ token: t.id, logprob: t.logprob, top: t.top.map((x) => ({ token: x.id, logprob: x.logprob })) }));
  return { tokens: steps.map((x) => x.token), steps };
}

/** The side's prompt_logprobs for a continuation of the prompt: one prefill over both. */
export function scoreContinuation(s: Side, prompt: number[], continuation: number[]): ScoredToken[] {
  const V = s.model.config.vocabSize;
  const { logits } = s.engine.forward([{ seqId: 99, tokens: [...prompt, ...continuation] }])[0];
  s.engine.release(99);
  return continuation.map((token, i) => {
    const row = prompt.length + i - 1;
    const lp = logSoftmax(logits.subarray(row * V, (row + 1) * V));
    let top = 0;
    let rank = 1;
    for (let x = 0; x < V; x++) {
      if (lp[x] > lp[top]) top = x;
      if (lp[x] > lp[token]) rank++;
    }
    return { token, logprob: lp[token], rank, topLogprob: lp[top], topToken: top };
  });
}

/**
 * The plan's prompt cut from `corpus` at a position drawn from (seed, index), and the `next` tokens of
 * the text after it (an accuracy item).
 */
export function corpusPrompt(corpus: string, plan: LengthPlan, index: number, seed: number, next = 0): { prompt: number[]; expected: number[] } {
  const rng = createRng((seed * 1000003 + index * 7919) >>> 0);
  const start = rng.int(corpus.length - 8 * plan.length - 64);
  const ids = createByteTokenizer().encode(corpus.slice(start, start + 8 * plan.length + 64), { addBos: true });
  return { prompt: ids.slice(0, plan.length), expected: ids.slice(plan.length, plan.length + next) };
}
