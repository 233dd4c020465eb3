/**
 * One request's verdict, from the oracles' evidence:
 *
 *   failed        an exchange failed or could not be parsed — never counted as clean
 *   identical     same tokens
 *   benign-drift  diverged, but every divergent token is a near-tie under the reference
 *   corrupt       the first divergence was suspicious (compare.ts), or the reference finds a
 *                 candidate token beyond the near-tie margin (crossscore.ts); without a reference
 *                 server to cross-score (golden runs), excess repetition after the divergence too
 *
 * With cross-scores, repetition alone never makes a request corrupt: a loop the reference itself
 * continues from the candidate's context is what greedy decoding does; it is reported as a note.
 * A corrupt request also carries its evidence class (evidence.ts), which the sequential test weighs.
 */
import { compareGenerations, type Comparison } from './compare.js';
import {
  corruptTokenCount,
  crossScore,
  DEFAULT_PLAUSIBILITY,
  type CrossScore,
  type PlausibilityThresholds,
  type TokenClass,
} from './crossscore.js';
import { requestEvidence, type DecisiveRule, type RequestEvidence } from './evidence.js';
import type { MarginCalibration } from './margin.js';
import { describePosition, type PositionFacts, type PositionFrame } from './positions.js';
import {
  DEFAULT_REPETITION,
  excessRepetition,
  type RepeatedSpan,
  type RepetitionOptions,
} from './repetition.js';
import type { Generation, ScoredToken } from './types.js';

export type RequestVerdict = 'identical' | 'benign-drift' | 'corrupt' | 'failed';

export interface CorruptToken extends PositionFacts {
  /** Index into the candidate's generated tokens. */
  index: number;
  token: number;
  class: Exclude<TokenClass, 'agree' | 'near-tie'> | 'first-divergence';
  referenceToken?: number;
  logprob?: number;
  rank?: number;
  gap?: number;
}

export interface RequestJudgement {
  verdict: RequestVerdict;
  reasons: string[];
  notes: string[];
  errors: string[];
  margin?: MarginCalibration;
  comparison?: Comparison;
  crossScore?: CrossScore;
  excessRepetition: RepeatedSpan[];
  corruptTokens: CorruptToken[];
  /** Candidate tokens the oracles could judge (the shared prefix counts as judged-clean). */
  judgedTokens: number;
  /** How strongly this request says "corrupt" (none unless corrupt). */
  evidence: RequestEvidence;
}

export interface JudgeInput {
  reference: Generation;
  candidate: Generation;
  /** The reference's scores of the candidate's tokens, aligned to generated indices; absent in golden runs. */
  scores?: readonly ScoredToken[];
  promptLength: number;
  frame: PositionFrame;
  margin: MarginCalibration;
  thresholds?: PlausibilityThresholds;
  repetition?: RepetitionOptions;
  decisive?: DecisiveRule;
}

export function failedJudgement(errors: string[]): RequestJudgement {
  return {
    verdict: 'failed',
    reasons: [],
    notes: [],
    errors,
    excessRepetition: [],
    corruptTokens: [],
    judgedTokens: 0,
    evidence: { strength: 'none' },
  };
}

function spanText(s: RepeatedSpan): string {
  return `${s.patternSize}-token pattern ×${s.count} at generated index ${s.start}`;
}

export function judgeRequest(input: JudgeInput): RequestJudgement {
  const { reference, candidate, promptLength, frame } = input;
  const comparison = compareGenerations(reference, candidate, input.margin.margin);
  const at = (index: number) => describePosition(promptLength + index, frame);
  const base: RequestJudgement = {
    verdict: 'identical',
    reasons: [],
    notes: [],
    errors: [],
    margin: input.margin,
    comparison,
    excessRepetition: [],
    corruptTokens: [],
    judgedTokens: candidate.tokens.length,
    evidence: { strength: 'none' },
  };
  if (comparison.identical) return base;

  const div = comparison.divergence!;
  const repetition = excessRepetition(
    reference.tokens,
    candidate.tokens,
    input.repetition ?? DEFAULT_REPETITION,
    div.index,
  );
  const corrupt: CorruptToken[] = [];
  const reasons: string[] = [];
  const notes: string[] = [];
  if (div.kind === 'suspicious') {
    reasons.push(`first divergence at generated index ${div.index}: ${div.reason}`);
    if (div.candidateToken !== undefined)
      corrupt.push({
        ...at(div.index),
        index: div.index,
        token: div.candidateToken,
        class: 'first-divergence',
        referenceToken: div.referenceToken,
        gap: div.referenceMargin,
      });
  } else notes.push(`first divergence at generated index ${div.index} is a ${div.reason}`);

  let score: CrossScore | undefined;
  let judged: number;
  if (input.scores) {
    score = crossScore(candidate.tokens, input.scores, {
      margin: input.margin.margin,
      thresholds: input.thresholds ?? DEFAULT_PLAUSIBILITY,
      from: div.index,
    });
    judged = div.index + score.judged;
    for (const f of score.flagged) {
      if (f.class !== 'suspicious' && f.class !== 'implausible') continue;
      const existing = corrupt.find((c) => c.index === f.index);
      const entry: CorruptToken = {
        ...at(f.index),
        index: f.index,
        token: f.token,
        class: f.class,
        referenceToken: f.referenceBest,
        logprob: f.logprob,
        rank: f.rank,
        gap: f.gap,
      };
      if (existing) Object.assign(existing, entry);
      else corrupt.push(entry);
    }
    const n = corruptTokenCount(score);
    if (n > 0)
      reasons.push(
        `${n} candidate token(s) beyond the near-tie margin under the reference (${score.counts.implausible} implausible)`,
      );
    if (repetition.length > 0 && n === 0)
      notes.push(
        `repetition the reference's own output lacks (${repetition.map(spanText).join('; ')}), but every token is plausible under the reference`,
      );
  } else {
    judged = Math.min(candidate.tokens.length, div.index + 1);
    notes.push('tokens after the first divergence are not judged: no reference server to cross-score them');
    if (repetition.length > 0)
      reasons.push(`repetition the reference does not produce: ${repetition.map(spanText).join('; ')}`);
  }
  corrupt.sort((a, b) => a.index - b.index);
  const evidence = requestEvidence(
    {
      corrupt: reasons.length > 0,
      margin: input.margin.margin,
      corruptTokens: corrupt,
      excessRepetition: repetition,
    },
    input.decisive,
  );
  if (evidence.reason) reasons.push(`decisive evidence: ${evidence.reason}`);
  return {
    ...base,
    evidence,
    verdict: reasons.length > 0 ? 'corrupt' : 'benign-drift',
    reasons,
    notes,
    crossScore: score,
    excessRepetition: repetition,
    corruptTokens: corrupt,
    judgedTokens: judged,
  };
}
