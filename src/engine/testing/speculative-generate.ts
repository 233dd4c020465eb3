/**
 * Single-request generation through the scheduler (the same code path the server uses), with or
 * without speculative decoding; returns the tokens and the speculation statistics. For tests and
 * benchmarks: `speculativeGenerate(engine, prompt, { spec, maxTokens })`.
 */
import type { Engine } from '../engine.js';
import { GREEDY, type SamplingParams } from '../sampling.js';
import { Scheduler } from '../scheduler.js';
import type { EmittedToken, Finish, SpecStats } from '../sequence.js';
import type { SpecConfig } from '../speculative/config.js';

export interface SpeculativeGenerateOptions {
  spec: SpecConfig | null;
  maxTokens: number;
  sampling?: SamplingParams;
  seed?: number;
  ignoreEos?: boolean;
  logprobs?: number;
  /** Defaults to the model's max_position_embeddings. */
  maxModelLen?: number;
}

export interface SpeculativeGenerateResult {
  tokens: EmittedToken[];
  finish: Finish;
  spec: SpecStats;
  /** Engine steps used (prefill included). */
  steps: number;
}

export function speculativeGenerate(engine: Engine, promptIds: readonly number[], o: SpeculativeGenerateOptions): SpeculativeGenerateResult {
  const scheduler = new Scheduler(engine, { spec: o.spec, maxNumSeqs: 1, maxModelLen: o.maxModelLen ?? engine.model.config.maxPositions });
  const tokens: EmittedToken[] = [];
  let finish: Finish | null = null;
  scheduler.submit(
    { promptIds, maxTokens: o.maxTokens, sampling: o.sampling ?? GREEDY, seed: o.seed ?? 0, ignoreEos: o.ignoreEos ?? true, logprobs: o.logprobs ?? 0 },
    { onTokens: (t) => tokens.push(...t), onFinish: (f) => (finish = f) },
  );
  scheduler.runToCompletion();
  const c = scheduler.counters;
  return {
    tokens,
    finish: finish ?? { reason: 'error', error: 'the scheduler stopped before the sequence finished' },
    spec: { drafts: c.specDrafts, draftTokens: c.specDraftTokens, acceptedTokens: c.specAcceptedTokens },
    steps: c.steps,
  };
}

/** Mean acceptance length as vLLM reports it: 1 + accepted / drafts (tokens per verify step, bonus included). */
export function meanAcceptanceLength(s: Pick<SpecStats, 'drafts' | 'acceptedTokens'>): number {
  return s.drafts === 0 ? 1 : 1 + s.acceptedTokens / s.drafts;
}
