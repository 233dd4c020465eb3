/**
 * The oracles people use today, implemented from their published descriptions so the bench can
 * compare faultline against them on the same recordings (research notes §1):
 *
 *  - exact match: vLLM's check_outputs_equal — same text and same token ids, or fail.
 *  - check_logprobs_close (vLLM tests/models/utils.py): walk both token lists; at the first
 *    index where they differ, each side's token must be in the other side's top-N logprobs, then
 *    stop ("sequences will now diverge"). Logprob values are never compared. With
 *    always_check_logprobs every index is checked, not only the first mismatch. (The optional
 *    prompt-logprob set equality needs both sides' prompt logprobs, which a probe does not record.)
 *  - accuracy-style: GSM8K-style CI — per-item correctness on a task, pass when the candidate's
 *    accuracy ≥ the reference's − tolerance (absolute, one-sided, vLLM's default 0.08), or with
 *    the opt-in gate: the one-sided 95 % Wilson lower bound of the candidate's accuracy ≥ the
 *    reference's accuracy × (1 − rtol).
 */
import type { Generation, GeneratedStep } from './types.js';

export interface BaselineResult {
  pass: boolean;
  detail: string;
  /** Generated index where the oracle decided, when it compared tokens. */
  index?: number;
}

export function exactMatch(reference: Generation, candidate: Generation): BaselineResult {
  if (reference.text !== undefined && candidate.text !== undefined && reference.text !== candidate.text)
    return { pass: false, detail: 'texts differ' };
  const n = Math.max(reference.tokens.length, candidate.tokens.length);
  for (let t = 0; t < n; t++)
    if (reference.tokens[t] !== candidate.tokens[t])
      return { pass: false, detail: `token ids differ at index ${t}`, index: t };
  return { pass: true, detail: 'identical' };
}

function inTopN(step: GeneratedStep, token: number): boolean {
  return step.token === token || step.top.some((e) => e.token === token);
}

export function checkLogprobsClose(
  reference: Generation,
  candidate: Generation,
  options: { alwaysCheckLogprobs?: boolean } = {},
): BaselineResult {
  const n = Math.min(reference.tokens.length, candidate.tokens.length);
  for (let t = 0; t < n; t++) {
    const a = reference.tokens[t];
    const b = candidate.tokens[t];
    if (a === b && !options.alwaysCheckLogprobs) continue;
    if (!inTopN(candidate.steps[t], a))
      return { pass: false, detail: `index ${t}: reference token ${a} not in candidate top-N`, index: t };
    if (!inTopN(reference.steps[t], b))
      return { pass: false, detail: `index ${t}: candidate token ${b} not in reference top-N`, index: t };
    if (a !== b)
      return {
        pass: true,
        detail: `first mismatch at index ${t} is within top-N; sequences diverge, comparison stops`,
        index: t,
      };
  }
  return { pass: true, detail: 'no mismatch' };
}

/** One-sided Wilson score lower bound (z for the one-sided confidence). */
export function wilsonLower(successes: number, n: number, z = 1.6448536269514722): number {
  if (n === 0) return 0;
  const p = successes / n;
  const z2 = z * z;
  const centre = p + z2 / (2 * n);
  const half = z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return Math.max(0, (centre - half) / (1 + z2 / n));
}

export interface AccuracyResult extends BaselineResult {
  referenceAccuracy: number;
  candidateAccuracy: number;
}

export function accuracyCheck(
  referenceCorrect: readonly boolean[],
  candidateCorrect: readonly boolean[],
  options: { gate?: 'absolute' | 'wilson'; tolerance?: number; rtol?: number } = {},
): AccuracyResult {
  const acc = (xs: readonly boolean[]) => (xs.length ? xs.filter(Boolean).length / xs.length : 0);
  const referenceAccuracy = acc(referenceCorrect);
  const candidateAccuracy = acc(candidateCorrect);
  if ((options.gate ?? 'absolute') === 'absolute') {
    const tol = options.tolerance ?? 0.08;
    const pass = candidateAccuracy >= referenceAccuracy - tol;
    return {
      pass,
      referenceAccuracy,
      candidateAccuracy,
      detail: `accuracy ${candidateAccuracy.toFixed(3)} vs reference ${referenceAccuracy.toFixed(3)} − ${tol}`,
    };
  }
  const rtol = options.rtol ?? 0.08;
  const lower = wilsonLower(candidateCorrect.filter(Boolean).length, candidateCorrect.length);
  const pass = lower >= referenceAccuracy * (1 - rtol);
  return {
    pass,
    referenceAccuracy,
    candidateAccuracy,
    detail: `Wilson lower bound ${lower.toFixed(3)} vs ${(referenceAccuracy * (1 - rtol)).toFixed(3)}`,
  };
}

/** Accuracy item for a continuation task: the generation starts with the expected tokens. */
export function continuationCorrect(expected: readonly number[], generated: readonly number[]): boolean {
  return expected.length <= generated.length && expected.every((t, i) => generated[i] === t);
}
