/**
 * The endpoint verdict: is the candidate corrupting output, from as few probe requests as possible?
 *
 * Each judged request is one trial with a categorical outcome — clean, or corrupt with weak or
 * decisive evidence (evidence.ts); tokens inside one request are not independent, so requests are
 * the unit. Two sequential rules run over the outcomes in request order and stop as soon as one
 * decides:
 *
 *  - CORRUPT — Wald's SPRT on the outcome class. H0 (benign): a request is corrupt with
 *    probability ≤ p0 and decisive with probability ≤ decisiveP0; H1: p1 and decisiveP1. Each
 *    request multiplies the likelihood ratio by P1(class) / P0(class):
 *        clean    (1 − p1) / (1 − p0)
 *        weak     (p1 − decisiveP1) / (p0 − decisiveP0)
 *        decisive decisiveP1 / decisiveP0
 *    and CORRUPT is declared when the product reaches A = (1 − β) / α. The bound: these factors
 *    grow with the class, so under any benign server whose class rates stay within the H0 bounds
 *    (given the past) each factor has mean ≤ 1 and the product is a nonnegative supermartingale;
 *    by Ville's inequality P(it ever reaches A) ≤ 1 / A = α / (1 − β) ≈ 1.05 % with the defaults,
 *    however long the run and wherever it stops (the factors are e-values; Vovk & Wang 2021).
 *    With the defaults a decisive request alone decides (×100), two weak ones do (×11.1 each,
 *    with up to two clean requests between them), and a clean request costs ×0.905.
 *  - CLEAN — the one-sided Clopper–Pearson upper bound on the corrupt-request rate is under
 *    `targetRate`: with no corrupt request that is the rule of three (29 clean requests for 10 %
 *    at 95 %); with some corrupt requests the SPRT must also have accepted H0 (product ≤ β/(1−α)).
 *
 * A policy without the decisive rates is the two-class SPRT (every corrupt request weighs p1/p0).
 * Failed requests are never clean: they are left out of both rules, counted, and when more than
 * `maxFailedFraction` of the requests failed (or more than `maxFailedRequests`, when that is set)
 * the answer is INCONCLUSIVE even if the rest look clean. Running out of requests before a
 * decision is INCONCLUSIVE, with what was missing.
 */
import { clopperPearsonUpper, trialsForZeroEventBound } from './binomial.js';
import type { EvidenceStrength } from './evidence.js';

export type EndpointVerdict = 'CLEAN' | 'CORRUPT' | 'INCONCLUSIVE';
export type RequestOutcome = 'clean' | 'corrupt' | 'failed';

export interface SequentialPolicy {
  /** Benign (H0) and corrupting (H1) rates of corrupt requests, any evidence. */
  p0: number;
  p1: number;
  /** … of those with decisive evidence (a subset); both absent: decisive weighs as weak. */
  decisiveP0?: number;
  decisiveP1?: number;
  alpha: number;
  beta: number;
  /** CLEAN needs the corrupt-request rate bounded below this. */
  targetRate: number;
  /** Confidence of the reported bounds (one-sided). */
  confidence: number;
  maxFailedFraction: number;
  /** When set, replaces the fraction: CLEAN needs at most this many failed requests (0: none may fail). */
  maxFailedRequests?: number;
}

/**
 * p0 0.5 %: the per-request false-alarm rate tolerated from the oracle. decisiveP0 0.05 %: a benign
 * request shows decisive evidence at most once in 2,000 — its tokens would need gap noise twice the
 * largest any benign pair showed; bench/oracle-calibration.ts counts 0 such requests and
 * extrapolates the noisiest benign pair's tail (FP8 KV) to at most ~3.4e-4 per request. H1: the
 * corrupt-request rate is the CLEAN target (10 %), half of those decisive.
 */
export const DEFAULT_SEQUENTIAL: Readonly<SequentialPolicy> = {
  p0: 0.005,
  p1: 0.1,
  decisiveP0: 0.0005,
  decisiveP1: 0.05,
  alpha: 0.01,
  beta: 0.05,
  targetRate: 0.1,
  confidence: 0.95,
  maxFailedFraction: 0.1,
};

export interface SequentialState {
  verdict: EndpointVerdict | 'continue';
  reason: string;
  seen: number;
  judged: number;
  corrupt: number;
  /** Corrupt requests whose evidence was decisive. */
  decisive: number;
  failed: number;
  /** SPRT log-likelihood ratio. */
  llr: number;
  /** One-sided upper bound on the corrupt-request rate. */
  rateUpper: number;
}

export interface SprtBounds {
  upper: number;
  lower: number;
  /** Log-likelihood ratio added per request of each class. */
  perClean: number;
  perCorrupt: number;
  perDecisive: number;
}

export function sprtBounds(p: SequentialPolicy): SprtBounds {
  const split = p.decisiveP0 !== undefined && p.decisiveP1 !== undefined;
  return {
    upper: Math.log((1 - p.beta) / p.alpha),
    lower: Math.log(p.beta / (1 - p.alpha)),
    perClean: Math.log((1 - p.p1) / (1 - p.p0)),
    perCorrupt: split ? Math.log((p.p1 - p.decisiveP1!) / (p.p0 - p.decisiveP0!)) : Math.log(p.p1 / p.p0),
    perDecisive: split ? Math.log(p.decisiveP1! / p.decisiveP0!) : Math.log(p.p1 / p.p0),
  };
}

/** Throws unless the rates make a valid test: the per-class factors must grow with the class. */
export function checkPolicy(p: SequentialPolicy): void {
  if (!(p.p0 > 0 && p.p1 > p.p0 && p.p1 < 1)) throw new RangeError('need 0 < p0 < p1 < 1');
  if ((p.decisiveP0 === undefined) !== (p.decisiveP1 === undefined))
    throw new RangeError('give both decisiveP0 and decisiveP1, or neither');
  if (p.decisiveP0 === undefined) return;
  if (!(p.decisiveP0 > 0 && p.decisiveP0 < p.p0 && p.decisiveP1! > 0 && p.decisiveP1! < p.p1))
    throw new RangeError('need 0 < decisiveP0 < p0 and 0 < decisiveP1 < p1');
  const b = sprtBounds(p);
  if (!(b.perClean <= b.perCorrupt && b.perCorrupt <= b.perDecisive))
    throw new RangeError(
      'the likelihood ratio must grow from clean to weak to decisive (else H0 bounds do not bound the false-alarm rate)',
    );
}

const pct = (x: number) => `${(100 * x).toFixed(x < 0.01 ? 2 : 1)}%`;

/** Whether `failed` of `seen` requests is within the policy's tolerance for failures. */
export function failuresTolerated(p: SequentialPolicy, failed: number, seen: number): boolean {
  return p.maxFailedRequests !== undefined
    ? failed <= p.maxFailedRequests
    : failed <= p.maxFailedFraction * seen;
}

/** The tolerance in words: "at most 10% of requests may fail", "no request may fail". */
export function describeFailureTolerance(p: SequentialPolicy): string {
  if (p.maxFailedRequests === undefined) return `at most ${pct(p.maxFailedFraction)} of requests may fail`;
  return p.maxFailedRequests === 0
    ? 'no request may fail'
    : `at most ${p.maxFailedRequests} request(s) may fail`;
}

/** Feed outcomes one at a time; `decide` says whether to stop. */
export class SequentialTest {
  private state: SequentialState;
  private readonly bounds: SprtBounds;

  constructor(readonly policy: SequentialPolicy = DEFAULT_SEQUENTIAL) {
    checkPolicy(policy);
    this.bounds = sprtBounds(policy);
    this.state = {
      verdict: 'continue',
      reason: 'no requests yet',
      seen: 0,
      judged: 0,
      corrupt: 0,
      decisive: 0,
      failed: 0,
      llr: 0,
      rateUpper: 1,
    };
  }

  get current(): Readonly<SequentialState> {
    return this.state;
  }

  /**
   * Add one outcome, with its evidence when corrupt (a corrupt request without one weighs as weak);
   * returns the state after it. Once decided, later outcomes change nothing.
   */
  add(outcome: RequestOutcome, evidence: EvidenceStrength = 'weak'): Readonly<SequentialState> {
    if (this.state.verdict !== 'continue') return this.state;
    const s = { ...this.state, seen: this.state.seen + 1 };
    if (outcome === 'failed') s.failed++;
    else {
      s.judged++;
      if (outcome === 'corrupt') {
        s.corrupt++;
        if (evidence === 'decisive') {
          s.decisive++;
          s.llr += this.bounds.perDecisive;
        } else s.llr += this.bounds.perCorrupt;
      } else s.llr += this.bounds.perClean;
    }
    const alphaBound = 1 - this.policy.confidence;
    s.rateUpper = clopperPearsonUpper(s.corrupt, s.judged, alphaBound);
    const failedOk = failuresTolerated(this.policy, s.failed, s.seen);
    if (s.llr >= this.bounds.upper) {
      s.verdict = 'CORRUPT';
      const decisive = s.decisive > 0 ? ` (${s.decisive} with decisive evidence)` : '';
      s.reason = `${s.corrupt} of ${s.judged} judged requests corrupt${decisive}: sequential test rejects a benign server at α = ${this.policy.alpha} (false-alarm bound ${pct(Math.exp(-this.bounds.upper))})`;
    } else if (
      failedOk &&
      s.rateUpper <= this.policy.targetRate &&
      (s.corrupt === 0 || s.llr <= this.bounds.lower)
    ) {
      s.verdict = 'CLEAN';
      s.reason = `${s.corrupt} of ${s.judged} judged requests corrupt: rate ≤ ${pct(s.rateUpper)} at ${pct(this.policy.confidence)} confidence (target ${pct(this.policy.targetRate)})`;
    } else s.reason = 'undecided';
    this.state = s;
    return s;
  }

  /** The verdict after the last outcome: undecided becomes INCONCLUSIVE with what was missing. */
  finish(): SequentialState {
    const s = { ...this.state };
    if (s.verdict !== 'continue') return s;
    s.verdict = 'INCONCLUSIVE';
    const reasons: string[] = [];
    if (s.seen === 0) reasons.push('no requests were run');
    if (!failuresTolerated(this.policy, s.failed, s.seen))
      reasons.push(
        `${s.failed} of ${s.seen} requests failed (${describeFailureTolerance(this.policy)}); failed requests never count as clean`,
      );
    if (s.judged > 0 && s.rateUpper > this.policy.targetRate) {
      const need =
        s.corrupt === 0
          ? trialsForZeroEventBound(this.policy.targetRate, 1 - this.policy.confidence)
          : undefined;
      reasons.push(
        `${s.corrupt} of ${s.judged} judged requests corrupt: rate bound ${pct(s.rateUpper)} is above the target ${pct(this.policy.targetRate)}` +
          (need ? `; at least ${need} clean requests are needed` : ''),
      );
    } else if (s.corrupt > 0 && s.llr > this.bounds.lower && s.rateUpper <= this.policy.targetRate)
      reasons.push(
        `${s.corrupt} corrupt request(s): neither corruption nor a benign rate is established yet`,
      );
    s.reason = reasons.join('; ') || 'undecided';
    this.state = s;
    return s;
  }
}

/** Run the whole sequence (no early stop) and return where it decided, for tests and the bench. */
export function runSequential(
  outcomes: readonly (RequestOutcome | 'decisive')[],
  policy: SequentialPolicy = DEFAULT_SEQUENTIAL,
): SequentialState {
  const test = new SequentialTest(policy);
  for (const o of outcomes) {
    const state = o === 'decisive' ? test.add('corrupt', 'decisive') : test.add(o);
    if (state.verdict !== 'continue') return test.current;
  }
  return test.finish();
}

/** Corrupt-token rate with its one-sided upper bound. */
export function tokenRate(
  corruptTokens: number,
  judgedTokens: number,
  confidence = DEFAULT_SEQUENTIAL.confidence,
): { rate: number; upper: number } {
  return {
    rate: judgedTokens > 0 ? corruptTokens / judgedTokens : 0,
    upper: clopperPearsonUpper(corruptTokens, judgedTokens, 1 - confidence),
  };
}
