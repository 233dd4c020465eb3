/**
 * How strong is one corrupt request's evidence? The sequential test (stats.ts) weighs each request
 * by its evidence class instead of counting every corrupt request alike:
 *
 *   none      not corrupt (identical, benign drift) — or failed, which the test counts apart
 *   weak      corrupt, but every corrupt token lies within a few noise margins of a near-tie
 *   decisive  corrupt far beyond anything benign noise produces, by one of:
 *     gap        a candidate token the reference rates ≥ max(4 nat, 3 × margin) below its own
 *                choice: a benign candidate's token is its argmax, so under the reference it
 *                trails the best token by at most that step's gap noise — 4 nat is twice the
 *                margin's cap (no benign pair's gap noise ever measured reached 2 nat), and
 *                3 margins is 4.5 × the pair's own q99 noise
 *     tokens     two or more implausible tokens (crossscore.ts: rank > k, p < 1 %): two separate
 *                improbable choices in one continuation
 *     loop       an implausible token followed by a loop the reference's own output lacks
 *                ("a sequence of a sequence of"): the corruption carried on into what follows
 *
 * The classes are nested (decisive ⊂ corrupt), so the test's null can bound each class's benign
 * rate separately; bench/oracle-calibration.ts counts the classes on benign pairs.
 */
import type { RepeatedSpan } from './repetition.js';

export type EvidenceStrength = 'none' | 'weak' | 'decisive';

export interface DecisiveRule {
  /** A corrupt token's reference gap at or beyond this many nats … */
  gapNats: number;
  /** … and at or beyond this many near-tie margins. */
  gapMargins: number;
  /** This many implausible tokens in one request decide on their own. */
  implausibleTokens: number;
}

export const DEFAULT_DECISIVE_RULE: Readonly<DecisiveRule> = {
  gapNats: 4,
  gapMargins: 3,
  implausibleTokens: 2,
};

export interface RequestEvidence {
  strength: EvidenceStrength;
  /** Why the request is decisive, in words; absent for the other classes. */
  reason?: string;
  /** The largest reference gap among the corrupt tokens (a lower bound where only top-k was known). */
  worstGap?: number;
}

/** The facts of a corrupt request the rule reads (a subset of RequestJudgement, kept small for tests). */
export interface EvidenceInput {
  corrupt: boolean;
  margin: number;
  corruptTokens: readonly { index: number; class: string; gap?: number }[];
  excessRepetition: readonly RepeatedSpan[];
}

const fmt = (x: number) => x.toFixed(2);

export function requestEvidence(
  input: EvidenceInput,
  rule: DecisiveRule = DEFAULT_DECISIVE_RULE,
): RequestEvidence {
  if (!input.corrupt) return { strength: 'none' };
  const gaps = input.corruptTokens
    .map((t) => t.gap)
    .filter((g): g is number => g !== undefined && Number.isFinite(g));
  const worstGap = gaps.length > 0 ? Math.max(...gaps) : undefined;
  const threshold = Math.max(rule.gapNats, rule.gapMargins * input.margin);
  if (worstGap !== undefined && worstGap >= threshold) {
    const at = input.corruptTokens.find((t) => t.gap === worstGap)!;
    return {
      strength: 'decisive',
      worstGap,
      reason: `token at generated index ${at.index} trails the reference's choice by ${fmt(worstGap)} nat ≥ max(${rule.gapNats} nat, ${rule.gapMargins} × margin ${fmt(input.margin)})`,
    };
  }
  const implausible = input.corruptTokens.filter((t) => t.class === 'implausible');
  if (implausible.length >= rule.implausibleTokens)
    return {
      strength: 'decisive',
      worstGap,
      reason: `${implausible.length} implausible tokens (generated indices ${implausible.map((t) => t.index).join(', ')})`,
    };
  const first = implausible[0];
  const loop = first && input.excessRepetition.find((s) => s.start + s.length > first.index);
  if (first && loop)
    return {
      strength: 'decisive',
      worstGap,
      reason: `implausible token at generated index ${first.index}, then a ${loop.patternSize}-token loop ×${loop.count} the reference does not produce`,
    };
  return { strength: 'weak', worstGap };
}
