/**
 * The endpoint verdict: is the candidate corrupting output, from as few probe requests as possible?
 *
 * Each judged request is a Bernoulli trial (corrupt or not; tokens inside one request are not
 * independent, so requests are the unit). Two sequential rules run over the outcomes in request
 * order and stop as soon as one decides:
 *
 *  - CORRUPT — Wald's SPRT of H0: p = p0 against H1: p = p1 crosses ln((1−β)/α). p0 > 0 is
 *    the rate of false alarms we tolerate from the per-request oracle; with the defaults
 *    (p0 0.5 %, p1 5 %, α 1 %, β 5 %) two corrupt requests with no clean one in between decide
 *    (research notes §6.1 worked example).
 *  - CLEAN — the one-sided Clopper–Pearson upper bound on the corrupt-request rate is under
 *    `targetRate`: with no corrupt request that is the rule of three (29 clean requests for 10 %
 *    at 95 %); with some corrupt requests the SPRT must also have accepted H0.
 *
 * Failed requests are never clean: they are left out of both rules, counted, and when more than
 * `maxFailedFraction` of the requests failed (or more than `maxFailedRequests`, when that is set)
 * the answer is INCONCLUSIVE even if the rest look clean. Running out of requests before a
 * decision is INCONCLUSIVE, with what was missing.
 */
import { clopperPearsonUpper, trialsForZeroEventBound } from './binomial.js';

export type EndpointVerdict = 'CLEAN' | 'CORRUPT' | 'INCONCLUSIVE';
export type RequestOutcome = 'clean' | 'corrupt' | 'failed';

export interface SequentialPolicy {
  p0: number;
  p1: number;
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

export const DEFAULT_SEQUENTIAL: Readonly<SequentialPolicy> = {
  p0: 0.005,
  p1: 0.05,
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
  failed: number;
  /** SPRT log-likelihood ratio. */
  llr: number;
  /** One-sided upper bound on the corrupt-request rate. */
  rateUpper: number;
}

export function sprtBounds(p: SequentialPolicy): {
  upper: number;
  lower: number;
  perCorrupt: number;
  perClean: number;
} {
  return {
    upper: Math.log((1 - p.beta) / p.alpha),
    lower: Math.log(p.beta / (1 - p.alpha)),
    perCorrupt: Math.log(p.p1 / p.p0),
    perClean: Math.log((1 - p.p1) / (1 - p.p0)),
  };
}

const pct = (x: number) => `${(100 * x).toFixed(x < 0.01 ? 2 : 1)}%`;

/** Whether `failed` of `seen` requests is within the policy's tolerance for failures. */
export function failuresTolerated(p: SequentialPolicy, failed: number, seen: number): boolean {
  return p.maxFailedRequests !== undefined ? failed <= p.maxFailedRequests : failed <= p.maxFailedFraction * seen;
}

/** The tolerance in words: "at most 10% of requests may fail", "no request may fail". */
export function describeFailureTolerance(p: SequentialPolicy): string {
  if (p.maxFailedRequests === undefined) return `at most ${pct(p.maxFailedFraction)} of requests may fail`;
  return p.maxFailedRequests === 0 ? 'no request may fail' : `at most ${p.maxFailedRequests} request(s) may fail`;
}

/** Feed outcomes one at a time; `decide` says whether to stop. */
export class SequentialTest {
  private state: SequentialState;
  private readonly bounds: ReturnType<typeof sprtBounds>;

  constructor(readonly policy: SequentialPolicy = DEFAULT_SEQUENTIAL) {
    if (!(policy.p0 > 0 && policy.p1 > policy.p0 && policy.p1 < 1))
      throw new RangeError('need 0 < p0 < p1 < 1');
    this.bounds = sprtBounds(policy);
    this.state = {
      verdict: 'continue',
      reason: 'no requests yet',
      seen: 0,
      judged: 0,
      corrupt: 0,
      failed: 0,
      llr: 0,
      rateUpper: 1,
    };
  }

  get current(): Readonly<SequentialState> {
    return this.state;
  }

  /** Add one outcome; returns the state after it. Once decided, later outcomes change nothing. */
  add(outcome: RequestOutcome): Readonly<SequentialState> {
    if (this.state.verdict !== 'continue') return this.state;
    const s = { ...this.state, seen: this.state.seen + 1 };
    if (outcome === 'failed') s.failed++;
    else {
      s.judged++;
      if (outcome === 'corrupt') {
        s.corrupt++;
        s.llr += this.bounds.perCorrupt;
      } else s.llr += this.bounds.perClean;
    }
    const alphaBound = 1 - this.policy.confidence;
    s.rateUpper = clopperPearsonUpper(s.corrupt, s.judged, alphaBound);
    const failedOk = failuresTolerated(this.policy, s.failed, s.seen);
    if (s.llr >= this.bounds.upper) {
      s.verdict = 'CORRUPT';
      s.reason = `${s.corrupt} of ${s.judged} judged requests corrupt: sequential test rejects a benign rate ≤ ${pct(this.policy.p0)} at α = ${this.policy.alpha}`;
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
  outcomes: readonly RequestOutcome[],
  policy: SequentialPolicy = DEFAULT_SEQUENTIAL,
): SequentialState {
  const test = new SequentialTest(policy);
  for (const o of outcomes) if (test.add(o).verdict !== 'continue') return test.current;
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
