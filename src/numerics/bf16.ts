/**
 * BF16 (bfloat16): the top 16 bits of a float32 (1 sign, 8 exponent, 7 mantissa bits).
 *
 * Encoding is round-to-nearest-even on the dropped 16 bits, the formula of PyTorch's
 * `c10::detail::round_to_nearest_even`: `(bits + ((bits >> 16) & 1) + 0x7FFF) >> 16`.
 * Measured (shared data, fp8-cast-table.json): torch CUDA casts and `__float2bfloat16_rn`
 * equal it on every non-NaN float32. NaN handling differs between producers (CUDA 0x7FFF,
 * torch CPU 0xFFFF), so we canonicalise NaN to 0x7FC0 and compare NaN as "is NaN".
 *
 * Inputs are JS numbers, converted to float32 first (Math.fround): the BF16 value of a
 * float64 is defined here as BF16(float32(x)), which is what a serving stack computes
 * (activations are float32 before they are stored as BF16). Note this differs from rounding
 * the float64 directly on the rare double-rounding ties; that is intended.
 */
import { f32Bits } from './float-bits.js';

export const BF16_NAN_BITS = 0x7fc0;

/** float32(x) → bf16 bit pattern (0..0xFFFF), RNE; any NaN → 0x7FC0. */
export function f32ToBf16Bits(x: number): number {
  const b = f32Bits(x);
  if ((b & 0x7fffffff) > 0x7f800000) return BF16_NAN_BITS;
  // b + 0x8000 ≤ 0xFF808000 < 2^32, so the float64 sum is exact and >>> is safe.
  return (b + ((b >>> 16) & 1) + 0x7fff) >>> 16;
}

const decodeScratchU32 = new Uint32Array(1);
const decodeScratchF32 = new Float32Array(decodeScratchU32.buffer);

/** bf16 bit pattern → its exact value (every bf16 value is a float32, hence a JS number). */
export function bf16BitsToF32(b: number): number {
  decodeScratchU32[0] = (b & 0xffff) << 16;
  return decodeScratchF32[0];
}

/** x → the nearest bf16 value (as a JS number), via float32 as above. One scratch round trip: hot in the engine. */
export function roundToBf16(x: number): number {
  decodeScratchF32[0] = x;
  const b = decodeScratchU32[0];
  if ((b & 0x7fffffff) > 0x7f800000) return NaN;
  decodeScratchU32[0] = (b + ((b >>> 16) & 1) + 0x7fff) & 0xffff0000;
  return decodeScratchF32[0];
}

/**
 * Round every element of a float32 array to bf16 in place (the fast path for big arrays:
 * one integer add and mask per element through a Uint32 view of the same memory).
 */
export function roundArrayToBf16(a: Float32Array): void {
  const u = new Uint32Array(a.buffer, a.byteOffset, a.length);
  for (let i = 0; i < u.length; i++) {
    const b = u[i];
    if ((b & 0x7fffffff) > 0x7f800000) u[i] = 0x7fc00000;
    else u[i] = ((b + ((b >>> 16) & 1) + 0x7fff) & 0xffff0000) >>> 0;
  }
}

/** float32 array → bf16 bit patterns (RNE, NaN → 0x7FC0). */
export function f32ArrayToBf16Bits(
  a: Float32Array,
  out: Uint16Array = new Uint16Array(a.length),
): Uint16Array {
  checkSameLength(a.length, out.length);
  const u = new Uint32Array(a.buffer, a.byteOffset, a.length);
  for (let i = 0; i < u.length; i++) {
    const b = u[i];
    out[i] = (b & 0x7fffffff) > 0x7f800000 ? BF16_NAN_BITS : (b + ((b >>> 16) & 1) + 0x7fff) >>> 16;
  }
  return out;
}

/** bf16 bit patterns → float32 values (exact). */
export function bf16BitsToF32Array(
  bits: Uint16Array,
  out: Float32Array = new Float32Array(bits.length),
): Float32Array {
  checkSameLength(bits.length, out.length);
  const u = new Uint32Array(out.buffer, out.byteOffset, out.length);
  for (let i = 0; i < bits.length; i++) u[i] = bits[i] << 16;
  return out;
}

function checkSameLength(a: number, b: number): void {
  if (a !== b) throw new RangeError(`length mismatch: ${a} elements in, room for ${b} out`);
}
