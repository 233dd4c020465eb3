/**
 * FP16 (IEEE 754 binary16): 1 sign, 5 exponent (bias 15), 10 mantissa bits; subnormal step 2^-24,
 * max finite 65504, infinities and NaNs as in IEEE.
 *
 * Encoding from float32 is round-to-nearest-even including subnormals; finite values at or above
 * 65520 (the tie between 65504 and the next binade) become ±inf, as IEEE and torch do.
 * NaN → 0x7E00 with the input's sign bit kept (the canonical quiet NaN that
 * c10's `fp16_ieee_from_fp32_value` returns). Inputs are rounded to float32 first, as in bf16.ts.
 */
import { f32Bits, f32FromBits, roundHalfEvenNonNegative } from './float-bits.js';

export const FP16_MAX = 65504;

/** float32(x) → binary16 bit pattern (0..0xFFFF), RNE. */
export function f32ToF16Bits(x: number): number {
  const b = f32Bits(x);
  const sign = (b >>> 16) & 0x8000;
  const f = b & 0x7fffffff;
  if (f > 0x7f800000) return sign | 0x7e00; // NaN
  if (f >= 0x477ff000) return sign | 0x7c00; // |x| ≥ 65520 (incl. inf) → inf
  if (f < 0x38800000) {
    // |x| < 2^-14: subnormal; count units of 2^-24 (|x| · 2^24 is exact in float64).
    // A result of 0x400 is the carry into the smallest normal, which is the right code.
    return sign | roundHalfEvenNonNegative(f32FromBits(f) * 16777216);
  }
  // Normal: rebias the exponent (127 → 15) and round the 13 dropped mantissa bits to even.
  const g = f + ((15 - 127) << 23) + 0xfff + ((f >>> 13) & 1);
  return sign | (g >>> 13);
}

/** binary16 bit pattern → its exact value. */
export function f16BitsToF32(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const e = (h >>> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0x1f) return m === 0 ? sign * Infinity : NaN;
  if (e === 0) return sign * m * 2 ** -24;
  return sign * (1024 + m) * 2 ** (e - 25);
}

/** x → the nearest binary16 value (as a JS number), via float32. */
export function roundToF16(x: number): number {
  return f16BitsToF32(f32ToF16Bits(x));
}

/** float32 array → binary16 bit patterns. */
export function f32ArrayToF16Bits(
  a: Float32Array,
  out: Uint16Array = new Uint16Array(a.length),
): Uint16Array {
  if (out.length !== a.length) throw new RangeError(`length mismatch: ${a.length} in, ${out.length} out`);
  for (let i = 0; i < a.length; i++) out[i] = f32ToF16Bits(a[i]);
  return out;
}

/** The 65536-entry decode table, built on first use (256 KB). */
let f16Lut: Float32Array | undefined;
function f16DecodeLut(): Float32Array {
  if (!f16Lut) {
    f16Lut = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) f16Lut[h] = f16BitsToF32(h);
  }
  return f16Lut;
}

/** binary16 bit patterns → float32 values (exact). */
export function f16BitsToF32Array(
  bits: Uint16Array,
  out: Float32Array = new Float32Array(bits.length),
): Float32Array {
  if (out.length !== bits.length)
    throw new RangeError(`length mismatch: ${bits.length} in, ${out.length} out`);
  const lut = f16DecodeLut();
  for (let i = 0; i < bits.length; i++) out[i] = lut[bits[i]];
  return out;
}
