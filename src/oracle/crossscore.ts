/**
 * Cross-scoring: after a divergence the two continuations differ naturally, so instead of
 * comparing them token by token we ask the reference how it rates every token the candidate
 * produced, in the candidate's own context (token-id prompt = prompt + candidate continuation,
 * scored with prompt_logprobs or echo). Benign drift leaves every candidate token the reference's
 * top choice or a near-tie; a corrupted server leaves tokens the reference finds implausible.
 *
 * Per token, with gap = lp_ref(best) − lp_ref(token):
 *   agree        rank 1
 *   near-tie     gap ≤ margin (margin.ts): noise between the servers can explain it
 *   suspicious   gap > margin: the reference was confident about something else
 *   implausible  suspicious, and rank > k and logprob < threshold: not a choice any
 *                near-copy of the reference makes
 *
 * Default thresholds and why: k = 5 is vLLM's num_logprobs in check_logprobs_close (a token
 * outside the other side's top-5 fails vLLM's own model tests). logprob < ln 0.01 (≈ −4.6):
 * a benign candidate token is the candidate's argmax, so under the reference it is within 2δ of
 * the best token (margin.ts); reaching p < 1% needs either a flat distribution (the rank test
 * guards that) or a logprob shift of several nats — about 50× the 0.05 tolerance of a healthy
 * BF16 engine. The thresholds leave that much headroom on purpose: false alarms cost trust.
 */
import type { ScoredToken } from './types.js';

export interface PlausibilityThresholds {
  /** A token is implausible only when its rank exceeds this (k). */
  rank: number;
  /** … and its reference logprob is below this. */
  logprob: number;
}

export const DEFAULT_PLAUSIBILITY: Readonly<PlausibilityThresholds> = { rank: 5, logprob: Math.log(0.01) };

export type TokenClass = 'agree' | 'near-tie' | 'suspicious' | 'implausible';

export interface TokenJudgement {
  /** Index into the candidate's generated tokens. */
  index: number;
  token: number;
  class: TokenClass;
  logprob: number;
  rank: number;
  rankIsLowerBound: boolean;
  /** lp_ref(best) − lp_ref(token). */
  gap: number;
  referenceBest: number;
}

export interface CrossScore {
  /** Tokens judged (from `from` to the end). */
  judged: number;
  counts: Record<TokenClass, number>;
  /** Every token that is not `agree`, in order. */
  flagged: TokenJudgement[];
  /** Mean −logprob of the judged candidate tokens under the reference. */
  meanNll: number;
}

export function classifyToken(s: ScoredToken, margin: number, t: PlausibilityThresholds): TokenClass {
  const gap = s.topLogprob - s.logprob;
  if ((s.rank <= 1 && !s.rankIsLowerBound) || gap <= 0) return 'agree';
  if (gap <= margin) return 'near-tie';
  if (s.rank > t.rank && s.logprob < t.logprob) return 'implausible';
  return 'suspicious';
}

/**
 * Judge candidate tokens `from` … end. `scores[i]` is the reference's score of generated token i
 * (the caller aligns prompt_logprobs to generated indices). Tokens before `from` agreed with the
 * reference's own generation and are not judged again.
 */
export function crossScore(
  candidateTokens: readonly number[],
  scores: readonly ScoredToken[],
  options: { margin: number; thresholds?: PlausibilityThresholds; from?: number },
): CrossScore {
  if (scores.length !== candidateTokens.length)
    throw new RangeError(
      `cross-score: ${scores.length} scores for ${candidateTokens.length} candidate tokens`,
    );
  const thresholds = options.thresholds ?? DEFAULT_PLAUSIBILITY;
  const counts: Record<TokenClass, number> = { agree: 0, 'near-tie': 0, suspicious: 0, implausible: 0 };
  const flagged: TokenJudgement[] = [];
  let nll = 0;
  const from = options.from ?? 0;
  for (let i = from; i < candidateTokens.length; i++) {
    const s = scores[i];
    if (s.token !== candidateTokens[i])
      throw new RangeError(
        `cross-score: score ${i} is for token ${s.token}, candidate has ${candidateTokens[i]}`,
      );
    const cls = classifyToken(s, options.margin, thresholds);
    counts[cls]++;
    nll -= s.logprob;
    if (cls !== 'agree')
      flagged.push({
        index: i,
        token: s.token,
        class: cls,
        logprob: s.logprob,
        rank: s.rank,
        rankIsLowerBound: s.rankIsLowerBound ?? false,
        gap: s.topLogprob - s.logprob,
        referenceBest: s.topToken,
      });
  }
  const judged = Math.max(0, candidateTokens.length - from);
  return { judged, counts, flagged, meanNll: judged > 0 ? nll / judged : 0 };
}

/** Tokens that count as corrupt: beyond the near-tie margin. */
export function corruptTokenCount(score: CrossScore): number {
  return score.counts.suspicious + score.counts.implausible;
}
