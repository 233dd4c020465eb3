/**
 * Prompt logprobs under load against the same prompt alone. The tokens are given, so there is no
 * divergence to explain: each prompt token's log-probability should agree up to the numeric noise
 * of a benign configuration (FP8 KV, batch-variant reductions: hundredths of a nat on the models we
 * probe). A position is off when it differs by more than `tolerance` nats; the request is corrupt
 * when at least `minOff` positions and `minFraction` of them are off, so one borderline position
 * never decides. A row shift or a read of the wrong K/V moves most positions by nats, not hundredths.
 */
import type { ScoredToken } from './types.js';

export interface PromptLogprobPolicy {
  tolerance: number;
  minOff: number;
  minFraction: number;
}

export const DEFAULT_PROMPT_LOGPROB_POLICY: Readonly<PromptLogprobPolicy> = { tolerance: 0.5, minOff: 3, minFraction: 0.1 };

export interface PromptLogprobComparison {
  corrupt: boolean;
  compared: number;
  /** Prompt positions (index into the prompt) whose logprob is off, first few. */
  offPositions: number[];
  offCount: number;
  maxDelta: number;
}

/** Both score lists start at prompt position 1 (position 0 has no logprob). */
export function comparePromptLogprobs(
  reference: readonly ScoredToken[],
  candidate: readonly ScoredToken[],
  policy: PromptLogprobPolicy = DEFAULT_PROMPT_LOGPROB_POLICY,
): PromptLogprobComparison {
  const n = Math.min(reference.length, candidate.length);
  const off: number[] = [];
  let maxDelta = 0;
  for (let i = 0; i < n; i++) {
    const d = Math.abs(reference[i].logprob - candidate[i].logprob);
    maxDelta = Math.max(maxDelta, d);
    if (d > policy.tolerance) off.push(i + 1);
  }
  const lengthMismatch = reference.length !== candidate.length;
  const corrupt = lengthMismatch || (off.length >= policy.minOff && off.length >= policy.minFraction * n);
  return { corrupt, compared: n, offPositions: off.slice(0, 8), offCount: off.length, maxDelta };
}
