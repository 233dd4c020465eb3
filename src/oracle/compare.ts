/**
 * First divergence between a reference and a candidate greedy generation for the same prompt,
 * classified the way vLLM's check_logprobs_close does (each side's token must be in the other's
 * top-k) plus a margin test that check lacks: the reference must not have been confident.
 *
 *   near-tie   — both memberships hold and the reference's gap lp(ref token) − lp(cand token)
 *                is within the calibrated margin (margin.ts): benign noise can explain the flip.
 *   suspicious — anything else: the reference was confident, or a token fell outside the other's
 *                top-k, or one side produced a different number of tokens for the same request.
 */
import type { Generation, GeneratedStep } from './types.js';

export interface Divergence {
  /** Index into the generated tokens (not the sequence position). */
  index: number;
  kind: 'near-tie' | 'suspicious';
  /** Undefined when that side had already ended. */
  referenceToken?: number;
  candidateToken?: number;
  candidateInReferenceTop: boolean;
  referenceInCandidateTop: boolean;
  /**
   * lp_ref(reference token) − lp_ref(candidate token). When the candidate token is not in the
   * reference's top-k only a lower bound is known: the gap down to the last listed alternative.
   */
  referenceMargin?: number;
  marginIsLowerBound: boolean;
  reason: string;
}

export interface Comparison {
  identical: boolean;
  /** Number of leading tokens both sides agree on. */
  agreeing: number;
  divergence?: Divergence;
}

const fmt = (x: number) => x.toFixed(3);

function logprobIn(step: GeneratedStep, token: number): number | undefined {
  if (step.token === token) return step.logprob;
  return step.top.find((e) => e.token === token)?.logprob;
}

function classify(index: number, ref: GeneratedStep, cand: GeneratedStep, margin: number): Divergence {
  const candInRef = logprobIn(ref, cand.token);
  const refInCand = logprobIn(cand, ref.token);
  const base = {
    index,
    referenceToken: ref.token,
    candidateToken: cand.token,
    candidateInReferenceTop: candInRef !== undefined,
    referenceInCandidateTop: refInCand !== undefined,
  };
  if (candInRef === undefined) {
    const last = ref.top.length > 0 ? ref.top[ref.top.length - 1].logprob : undefined;
    const bound = last === undefined ? undefined : ref.logprob - last;
    return {
      ...base,
      kind: 'suspicious',
      referenceMargin: bound,
      marginIsLowerBound: true,
      reason:
        `candidate token ${cand.token} is not in the reference's top-${ref.top.length}` +
        (bound === undefined ? '' : ` (gap > ${fmt(bound)})`),
    };
  }
  const gap = ref.logprob - candInRef;
  if (refInCand === undefined)
    return {
      ...base,
      kind: 'suspicious',
      referenceMargin: gap,
      marginIsLowerBound: false,
      reason: `reference token ${ref.token} is not in the candidate's top-${cand.top.length}`,
    };
  if (gap > margin)
    return {
      ...base,
      kind: 'suspicious',
      referenceMargin: gap,
      marginIsLowerBound: false,
      reason: `reference was confident: gap ${fmt(gap)} > near-tie margin ${fmt(margin)}`,
    };
  return {
    ...base,
    kind: 'near-tie',
    referenceMargin: gap,
    marginIsLowerBound: false,
    reason: `near-tie: gap ${fmt(gap)} ≤ margin ${fmt(margin)}, each token in the other's top-k`,
  };
}

export function compareGenerations(reference: Generation, candidate: Generation, margin: number): Comparison {
  const common = Math.min(reference.tokens.length, candidate.tokens.length);
  for (let t = 0; t < common; t++) {
    if (reference.tokens[t] === candidate.tokens[t]) continue;
    return {
      identical: false,
      agreeing: t,
      divergence: classify(t, reference.steps[t], candidate.steps[t], margin),
    };
  }
  if (reference.tokens.length === candidate.tokens.length) return { identical: true, agreeing: common };
  const longer = reference.tokens.length > common ? 'reference' : 'candidate';
  return {
    identical: false,
    agreeing: common,
    divergence: {
      index: common,
      kind: 'suspicious',
      referenceToken: reference.tokens[common],
      candidateToken: candidate.tokens[common],
      candidateInReferenceTop: false,
      referenceInCandidateTop: false,
      marginIsLowerBound: false,
      reason: `same request, different lengths: reference ${reference.tokens.length} tokens, candidate ${candidate.tokens.length} (${longer} is longer)`,
    },
  };
}
