/**
 * The near-tie margin: how far apart (in reference log-probability) two tokens may be and still
 * swap places through benign numerical noise.
 *
 * Calibration. Where both servers generated the same tokens, they saw the same context, so any
 * difference between their log-probabilities for the same token is pure numerical noise between
 * the two configurations (batch composition, reduction order, FP8 KV rounding …). If every
 * log-probability moves by at most δ, the gap between two tokens moves by at most 2δ, so a benign
 * flip can only happen where the reference's gap was ≤ 2δ. We estimate δ as a high quantile of
 * the observed |Δ logprob| over the shared top-k tokens at agreeing positions and set
 *
 *     margin = clamp(safety · 2 · quantile_q(|Δ logprob|), floor, cap)
 *
 * floor 0.1 nat: twice SGLang's per-logprob HF-vs-engine tolerance of 0.05 (research notes §2.3),
 * i.e. the noise a well-behaved BF16 engine is allowed even when we observed less.
 * cap 1.0 nat: a gap beyond e¹ ≈ 2.7× in probability is never called a tie, however noisy the
 * pair looks — dense corruption also inflates the observed noise, and the cap keeps it from
 * excusing itself. With too few samples the margin is the cap (lenient: no false alarm from an
 * unmeasured pair); the implausible-token test (crossscore.ts), whose thresholds sit far above
 * any benign noise, still applies.
 */
import type { Generation } from './types.js';

export interface MarginPolicy {
  floor: number;
  cap: number;
  safety: number;
  /** Quantile of |Δ logprob| taken as the noise bound δ. */
  quantile: number;
  /** Fewer samples than this: the pair is uncalibrated and the margin is the cap. */
  minSamples: number;
}

export const DEFAULT_MARGIN_POLICY: Readonly<MarginPolicy> = {
  floor: 0.1,
  cap: 1.0,
  safety: 1.5,
  quantile: 0.99,
  minSamples: 20,
};

export interface MarginCalibration {
  margin: number;
  samples: number;
  /** The observed noise bound δ (the chosen quantile), when calibrated. */
  noise?: number;
  source: 'observed' | 'uncalibrated';
}

/**
 * |lp_ref(x) − lp_cand(x)| for every token x in both top-k lists, at the first `before` steps
 * (where the two sides generated the same tokens, hence saw the same context).
 */
export function noiseSamples(reference: Generation, candidate: Generation, before: number): number[] {
  const out: number[] = [];
  const n = Math.min(before, reference.steps.length, candidate.steps.length);
  for (let t = 0; t < n; t++) {
    const cand = new Map(candidate.steps[t].top.map((e) => [e.token, e.logprob]));
    for (const e of reference.steps[t].top) {
      const other = cand.get(e.token);
      if (other !== undefined && Number.isFinite(other) && Number.isFinite(e.logprob))
        out.push(Math.abs(e.logprob - other));
    }
  }
  return out;
}

/** The q-quantile by linear interpolation between order statistics (type 7, numpy's default). */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) throw new RangeError('quantile of an empty list');
  const sorted = [...values].sort((a, b) => a - b);
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

export function calibrateMargin(
  samples: readonly number[],
  policy: MarginPolicy = DEFAULT_MARGIN_POLICY,
): MarginCalibration {
  if (samples.length < policy.minSamples)
    return { margin: policy.cap, samples: samples.length, source: 'uncalibrated' };
  const noise = quantile(samples, policy.quantile);
  const margin = Math.min(policy.cap, Math.max(policy.floor, policy.safety * 2 * noise));
  return { margin, samples: samples.length, noise, source: 'observed' };
}
