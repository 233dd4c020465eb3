/**
 * The near-tie margin: how far apart (in reference log-probability) the reference's choice and
 * another token may be and still swap places through benign numerical noise.
 *
 * Calibration. Where both servers generated the same tokens they saw the same context, so any
 * change between them in the gap lp(chosen) − lp(runner-up) is pure numerical noise between the
 * two configurations (batch composition, reduction order, FP8 KV rounding …). A benign flip needs
 * exactly that change to exceed the gap. So, from the agreeing steps of the run so far,
 *
 *     margin = clamp(safety · quantile_q(|Δ gap|), floor, cap)      (gapNoiseSamples)
 *
 * with q = 0.99 and safety 1.5. floor 0.1 nat: twice SGLang's per-logprob HF-vs-engine tolerance
 * of 0.05 (research notes §2.3) — a gap moves by at most the sum of two such errors — the noise a
 * healthy BF16 engine is allowed even when we measured less. cap 2.0 nat (a probability ratio of
 * e² ≈ 7.4): no gap beyond it is ever called a tie, however noisy the pair looks, because dense
 * corruption inflates the measured noise too and must not excuse itself. With fewer than
 * minSamples samples the margin is the cap (lenient: an unmeasured pair raises no false alarm);
 * the implausible-token test (crossscore.ts) still applies.
 *
 * Measured on the engine with the trained tiny-swa (bench/oracle-calibration.ts, 32 window-crossing
 * requests of 64 tokens; table in README.md): FP8 KV (sm100-fixed) vs BF16 KV moves the runner-up
 * gap by q99 0.88, max 1.84 nat, its benign flips sat at gaps ≤ 0.45 and the margins were
 * 0.80–1.29; float32 vs bfloat16: q99 0.17. The cap was raised from 1.0 to 2.0 after that
 * measurement: FP8 KV noise alone exceeds 1.0.
 */
import type { Generation } from './types.js';

export interface MarginPolicy {
  floor: number;
  cap: number;
  safety: number;
  /** Quantile of |Δ gap| taken as the noise bound. */
  quantile: number;
  /** Fewer samples than this: the pair is uncalibrated and the margin is the cap. */
  minSamples: number;
}

export const DEFAULT_MARGIN_POLICY: Readonly<MarginPolicy> = {
  floor: 0.1,
  cap: 2.0,
  safety: 1.5,
  quantile: 0.99,
  minSamples: 20,
};

export interface MarginCalibration {
  margin: number;
  samples: number;
  /** The observed gap noise (the chosen quantile), when calibrated. */
  noise?: number;
  source: 'observed' | 'uncalibrated';
  /** Which agreeing steps were used (RunningMargin): only those within the window, or all. */
  scope?: 'within-window' | 'all-steps';
}

/**
 * Diagnostic: |lp_ref(x) − lp_cand(x)| for every token x in both top-k lists at the first `before`
 * steps. Tail tokens move more than the top ones, so this overstates the noise that matters for a
 * flip; the margin uses gapNoiseSamples.
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

/**
 * How much the gap between the reference's choice and its runner-up moved between the two
 * servers, at each of the first `before` steps (same tokens so far, hence the same context):
 * |(lp_ref(a) − lp_ref(b)) − (lp_cand(a) − lp_cand(b))|, a the chosen token, b the reference's
 * best alternative. A flip between a and b needs exactly this quantity to exceed the gap.
 */
export function gapNoiseSamples(reference: Generation, candidate: Generation, before: number): number[] {
  const out: number[] = [];
  const n = Math.min(before, reference.steps.length, candidate.steps.length);
  for (let t = 0; t < n; t++) {
    const r = reference.steps[t];
    const c = candidate.steps[t];
    const b = r.top.find((e) => e.token !== r.token);
    const cb = b && c.top.find((e) => e.token === b.token);
    if (!b || !cb || c.token !== r.token) continue;
    const d = Math.abs(r.logprob - b.logprob - (c.logprob - cb.logprob));
    if (Number.isFinite(d)) out.push(d);
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
  const margin = Math.min(policy.cap, Math.max(policy.floor, policy.safety * noise));
  return { margin, samples: samples.length, noise, source: 'observed' };
}

/**
 * The margin across a run: each request is calibrated on the agreeing steps of every request so
 * far, itself included, in prompt order (so the result does not depend on concurrency).
 *
 * With a window, steps produced with seq_len ≤ window are kept apart: there a window-dependent
 * defect cannot act, so they measure the benign noise of the pair alone. Once there are enough
 * of them the margin comes from them only; otherwise from all agreeing steps. This matters: on
 * the engine, the canonical fault model against a reference that differs only by the fault leaves
 * steps inside the window bit-identical but moves the gap by up to 5 nat at a few steps past it —
 * calibrated on all steps, the margin hit the cap and the corruption passed as near-ties.
 */
export class RunningMargin {
  private readonly all: number[] = [];
  private readonly withinWindow: number[] = [];

  constructor(
    readonly policy: MarginPolicy = DEFAULT_MARGIN_POLICY,
    readonly window?: number,
  ) {}

  next(reference: Generation, candidate: Generation, promptLength = 0): MarginCalibration {
    const agree = reference.tokens.findIndex((t, i) => t !== candidate.tokens[i]);
    const agreeing = agree < 0 ? reference.tokens.length : agree;
    const samples = gapNoiseSamples(reference, candidate, agreeing);
    this.all.push(...samples);
    if (this.window !== undefined) {
      // generated step i sits at position promptLength + i, produced from that many tokens
      const inside = Math.max(0, Math.min(agreeing, this.window - promptLength + 1));
      this.withinWindow.push(...gapNoiseSamples(reference, candidate, inside));
      if (this.withinWindow.length >= this.policy.minSamples)
        return { ...calibrateMargin(this.withinWindow, this.policy), scope: 'within-window' };
    }
    return { ...calibrateMargin(this.all, this.policy), scope: 'all-steps' };
  }
}
