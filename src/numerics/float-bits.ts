/**
 * float32 ⇄ bit-pattern helpers shared by the number formats.
 *
 * JS numbers are float64; every format here is defined as a conversion *from float32*
 * (that is what torch and the CUDA intrinsics take), so a number is first rounded to
 * float32 (`Math.fround`) and then its 32 bits are read through one shared scratch word.
 * The scratch is module-local and used synchronously only, so there is no shared state
 * visible to callers.
 */
const scratchF32 = new Float32Array(1);
const scratchU32 = new Uint32Array(scratchF32.buffer);

/** The float32 bit pattern of x (x is rounded to float32 first, RNE), as an unsigned 32-bit integer. */
export function f32Bits(x: number): number {
  scratchF32[0] = x;
  return scratchU32[0];
}

/** The float32 value of a 32-bit pattern (NaN payloads are not preserved by JS numbers). */
export function f32FromBits(bits: number): number {
  scratchU32[0] = bits >>> 0;
  return scratchF32[0];
}

/**
 * Round a non-negative, exactly representable real t (a float64 holding an integer plus
 * fraction, computed exactly) to the nearest integer, ties to even.
 * Callers use it only where `t` is exact (|x| · 2^k for float32 x), so there is no double rounding.
 */
export function roundHalfEvenNonNegative(t: number): number {
  const floor = Math.floor(t);
  const rest = t - floor; // exact: t and floor share the exponent range of a float64
  if (rest > 0.5 || (rest === 0.5 && (floor & 1) === 1)) return floor + 1;
  return floor;
}
