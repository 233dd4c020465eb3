/**
 * vLLM's `--logprobs-mode`: which logits the reported log-probabilities come from. raw_logprobs
 * (vLLM's default) is the model's own distribution; processed_logprobs is the distribution the
 * sampler chose from — after the logits processors (sampling penalties, min_tokens' masking of
 * stop tokens) and, when sampling, temperature. A probe of a request-level feature that changes
 * the choice (penalties) needs processed ones: under raw logprobs a penalized choice looks like a
 * less likely token picked on purpose, and a missing penalty like the more likely one.
 * The engine does not reflect top-k / top-p masks in processed log-probabilities.
 */
import type { PenaltyHistory, PenaltyParams } from './sampling-penalties.js';

export const LOGPROBS_MODES = ['raw_logprobs', 'processed_logprobs'] as const;
export type LogprobsMode = (typeof LOGPROBS_MODES)[number];

export interface ProcessedRowContext {
  history: PenaltyHistory;
  penalties: PenaltyParams;
  /** Output tokens before this one; stop ids are masked while it is below minTokens. */
  outIndex: number;
  minTokens: number;
  stopIds: readonly number[];
  temperature: number;
}

/** The row the processed log-probabilities are the log-softmax of. */
export function processedRow(raw: Float32Array, c: ProcessedRowContext): Float32Array {
  const row = c.history.penalize(raw, c.penalties);
  if (c.outIndex < c.minTokens) for (const id of c.stopIds) if (id >= 0 && id < row.length) row[id] = -Infinity;
  if (c.temperature > 0) for (let i = 0; i < row.length; i++) row[i] = Math.fround(row[i] / c.temperature);
  return row;
}
