/**
 * Tolerances for comparing a kernel's output with the float64 reference. `auto` takes FlashInfer's
 * own trtllm-gen decode test bands (research attention-numerics.md §5.4, vllm-flashinfer.md §6.4):
 * FP8 Q + FP8 out 5e-2 / 7e-2, FP8 Q + BF16/FP16 out 4e-2 / 7e-2, otherwise (BF16 Q, incl. FP8 KV)
 * 1e-2 / 1e-2 (rtol / atol), doubled when q_len_per_req > 1. An element mismatches when
 * |out − ref| > atol + rtol·|ref| (their `assert_close_with_mismatch_tolerance` rule); a non-finite
 * output element always mismatches.
 *
 * Those bands assume the kernel's arithmetic is at least as precise as its inputs. A kernel that
 * declares FP8 arithmetic (dump metadata `kernel_arithmetic=fp8`: it rounds a BF16 query to e4m3
 * without a scale and/or the softmax weights P to e4m3 before P·V) loses ~2⁻⁴ relative per rounding,
 * about 5× a BF16 band; its legitimate error is judged against the FP8-arithmetic band of the
 * kernel family's own tests (FlashInfer tests/attention/test_xqa_batch_decode.py: 0.1 / 0.1 for an
 * FP8 KV cache), and the report also counts what the dtype band alone would flag.
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

/** The dump metadata value by which a kernel declares FP8 arithmetic inside it. */
export const FP8_ARITHMETIC = 'fp8';

/** The band of the dtypes alone (what an exact-arithmetic kernel on these inputs must meet). */
export function dtypeTolerance(m: DumpMeta): Tolerance {
  let rtol = 1e-2, atol = 1e-2, why = 'BF16 query';
  if (m.qDtype === 'fp8_e4m3') [rtol, atol, why] = [4e-2, 7e-2, 'FP8 query, 16-bit output'];
  const specdec = m.qLenPerReq > 1;
  if (specdec) [rtol, atol] = [rtol * 2, atol * 2];
  return { atol, rtol, source: `auto: FlashInfer trtllm-gen test band for ${why}${specdec ? ', ×2 for q_len_per_req > 1' : ''}` };
}

/** `auto`: the dtype band, or for a kernel that declares FP8 arithmetic the wider of it and the FP8-arithmetic band. */
export function autoTolerance(m: DumpMeta): Tolerance {
  const dtype = dtypeTolerance(m);
  if (m.extra.kernel_arithmetic !== FP8_ARITHMETIC) return dtype;
  const atol = Math.max(dtype.atol, 0.1), rtol = Math.max(dtype.rtol, 0.1);
  return { atol, rtol, source: `auto: FP8-arithmetic kernel (kernel_arithmetic=fp8), FlashInfer XQA FP8-KV test band 0.1, 0.1 (the dtype band alone: ${dtype.atol}, ${dtype.rtol})` };
}

export function resolveTolerance(spec: ToleranceSpec, m: DumpMeta): Tolerance {
  return spec.kind === 'auto' ? autoTolerance(m) : { atol: spec.atol, rtol: spec.rtol, source: 'given' };
}

/** The second band a report reads beside the one that decides: the dtype band when `auto` widened it for FP8 arithmetic. */
export function secondaryTolerance(spec: ToleranceSpec, m: DumpMeta): Tolerance | undefined {
  if (spec.kind !== 'auto' || m.extra.kernel_arithmetic !== FP8_ARITHMETIC) return undefined;
  const d = dtypeTolerance(m), a = autoTolerance(m);
  return d.atol === a.atol && d.rtol === a.rtol ? undefined : d;
}

export function withinTolerance(out: number, ref: number, t: Tolerance): boolean {
  return Math.abs(out - ref) <= t.atol + t.rtol * Math.abs(ref); // false for NaN
}
