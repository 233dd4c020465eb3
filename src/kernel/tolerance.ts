/**
 * Tolerances for comparing a kernel's output with the float64 reference. `auto` takes FlashInfer's
 * own trtllm-gen decode test bands (research attention-numerics.md §5.4, vllm-flashinfer.md §6.4):
 * FP8 Q + FP8 out 5e-2 / 7e-2, FP8 Q + BF16/FP16 out 4e-2 / 7e-2, otherwise (BF16 Q, incl. FP8 KV)
 * 1e-2 / 1e-2 (rtol / atol), doubled when q_len_per_req > 1. An element mismatches when
 * |out − ref| > atol + rtol·|ref| (their `assert_close_with_mismatch_tolerance` rule); a non-finite
 * output element always mismatches.
 */
import { UserError } from '../core/errors.js';
import type { DumpMeta } from './dump-metadata.js';

export interface Tolerance {
  atol: number;
  rtol: number;
  /** Where the numbers came from, for the report. */
  source: string;
}

export type ToleranceSpec = { kind: 'auto' } | { kind: 'fixed'; atol: number; rtol: number };

export function parseTolerance(s: string): ToleranceSpec {
  if (s === 'auto') return { kind: 'auto' };
  const m = /^([^,]+),([^,]+)$/.exec(s);
  const atol = m ? Number(m[1]) : NaN, rtol = m ? Number(m[2]) : NaN;
  if (!m || !(Number.isFinite(atol) && atol >= 0 && Number.isFinite(rtol) && rtol >= 0))
    throw new UserError(`--tolerance must be "auto" or ABS,REL (two numbers ≥ 0), got "${s}"`, {
      code: 'E_USAGE',
      hint: 'e.g. --tolerance 0.02,0.02 (an element fails when |out − ref| > ABS + REL·|ref|)',
    });
  return { kind: 'fixed', atol, rtol };
}

export function autoTolerance(m: DumpMeta): Tolerance {
  let rtol = 1e-2, atol = 1e-2, why = 'BF16 query';
  if (m.qDtype === 'fp8_e4m3') [rtol, atol, why] = [4e-2, 7e-2, 'FP8 query, 16-bit output'];
  const specdec = m.qLenPerReq > 1;
  if (specdec) [rtol, atol] = [rtol * 2, atol * 2];
  return { atol, rtol, source: `auto: FlashInfer trtllm-gen test band for ${why}${specdec ? ', ×2 for q_len_per_req > 1' : ''}` };
}

export function resolveTolerance(spec: ToleranceSpec, m: DumpMeta): Tolerance {
  return spec.kind === 'auto' ? autoTolerance(m) : { atol: spec.atol, rtol: spec.rtol, source: 'given' };
}

export function withinTolerance(out: number, ref: number, t: Tolerance): boolean {
  return Math.abs(out - ref) <= t.atol + t.rtol * Math.abs(ref); // false for NaN
}
