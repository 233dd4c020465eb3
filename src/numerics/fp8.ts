/**
 * FP8 E4M3FN and E5M2: decode, and encode from float32 with round-to-nearest-even (subnormals
 * included) under two overflow policies. Facts: ../shared/research/attention-numerics.md §1.1–1.3,
 * measured exhaustively in test/fixtures/numerics/fp8-cast-table.json.
 *
 * E4M3FN  s eeee mmm, bias 7, no infinity, NaN = 0x7F/0xFF only, max 448 (0x7E), min subnormal 2^-9.
 * E5M2    s eeeee mm, bias 15, IEEE-like: ±inf = 0x7C/0xFC, NaN = e=31,m≠0, max 57344 (0x7B), min subnormal 2^-16.
 *
 * Modes (what happens past the largest finite value; rounding is identical otherwise):
 * - `satfinite`  = NVIDIA `__nv_cvt_float_to_fp8(x, __NV_SATFINITE, …)`, which is what vLLM's KV-cache
 *                  write uses. Finite overflow and ±inf clamp to ±max. Any NaN → 0x7F: the sign is dropped,
 *                  as the hardware does (measured: the table's `nv_*_satfinite_vs_sat` differ from the
 *                  sign-keeping reference `sat` on exactly the 8,388,607 negative-NaN inputs).
 * - `torch-cast` = `tensor.to(torch.float8_e4m3fn | float8_e5m2)` in torch ≤ 2.11 (the table's `nosat`):
 *                  E4M3: |x| > 464 (the tie between 448 and the NaN slot) and ±inf → NaN 0x7F|sign;
 *                  E5M2: |x| ≥ 61440 and ±inf → ±inf 0x7C|sign; NaN → 0x7F|sign (the sign is kept).
 *
 * NaN signs: a JS number cannot carry a NaN's sign reliably (V8 may rewrite NaN payloads), so the
 * sign-keeping torch-cast NaN is only guaranteed through `encodeFp8FromF32Bits` and `encodeFp8Array`,
 * which read float32 bits from memory. SATFINITE drops the sign anyway.
 *
 * Encoding works on the float32 bit pattern (no search): the exponent is rebiased and the dropped
 * mantissa bits are rounded to even with one integer add, the method of PyTorch's
 * `fp8e4m3fn_from_fp32_value`; subnormals are counted in units of the smallest subnormal.
 */
import { f32Bits, f32FromBits, roundHalfEvenNonNegative } from './float-bits.js';

export type Fp8Format = 'e4m3fn' | 'e5m2';
export type Fp8Mode = 'satfinite' | 'torch-cast';

export const FP8_E4M3_MAX = 448;
export const FP8_E5M2_MAX = 57344;
/** The NaN code every NVIDIA conversion returns, and torch for a positive NaN (both formats). */
export const FP8_NAN = 0x7f;

/** Largest finite value of the format. */
export function fp8Max(format: Fp8Format): number {
  return format === 'e4m3fn' ? FP8_E4M3_MAX : FP8_E5M2_MAX;
}

/** True when the code is a NaN of the format. */
export function isFp8Nan(code: number, format: Fp8Format): boolean {
  return format === 'e4m3fn' ? (code & 0x7f) === 0x7f : (code & 0x7f) > 0x7c;
}

// ---------------------------------------------------------------------------------------------
// Encode. `b` is a float32 bit pattern; the two functions per format are the whole algorithm.

function encodeE4m3Bits(b: number, saturate: boolean): number {
  const sign = (b >>> 24) & 0x80;
  const f = b & 0x7fffffff;
  if (f > 0x7f800000) return saturate ? FP8_NAN : FP8_NAN | sign; // NaN
  if (f >= 0x43f00000) return (saturate ? 0x7e : 0x7f) | sign; // |x| ≥ 480, ±inf
  if (f < 0x3c800000) {
    // |x| < 2^-6: subnormal, units of 2^-9 (exact in float64); 8 = carry into the min normal 0x08.
    return sign | roundHalfEvenNonNegative(f32FromBits(f) * 512);
  }
  // Normal: exponent 127 → 7 bias, keep 3 mantissa bits, RNE on the 20 dropped bits.
  const r = (f + ((7 - 127) << 23) + 0x7ffff + ((f >>> 20) & 1)) >>> 20;
  // 464 < |x| < 480 rounds into 0x7F, the NaN slot: torch keeps it (NaN), SATFINITE clamps.
  if (r === 0x7f && saturate) return 0x7e | sign;
  return r | sign;
}

function encodeE5m2Bits(b: number, saturate: boolean): number {
  const sign = (b >>> 24) & 0x80;
  const f = b & 0x7fffffff;
  if (f > 0x7f800000) return saturate ? FP8_NAN : FP8_NAN | sign; // NaN
  if (f >= 0x47800000) return (saturate ? 0x7b : 0x7c) | sign; // |x| ≥ 65536, ±inf
  if (f < 0x38800000) {
    // |x| < 2^-14: subnormal, units of 2^-16; 4 = carry into the min normal 0x04.
    return sign | roundHalfEvenNonNegative(f32FromBits(f) * 65536);
  }
  const r = (f + ((15 - 127) << 23) + 0xfffff + ((f >>> 21) & 1)) >>> 21;
  // 61440 ≤ |x| < 65536 rounds up to 0x7C = inf: torch keeps inf, SATFINITE clamps to 57344.
  if (r === 0x7c && saturate) return 0x7b | sign;
  return r | sign;
}

/** float32(x) → FP8 code 0..255 (x is rounded to float32 first). */
export function encodeFp8(x: number, format: Fp8Format, mode: Fp8Mode): number {
  const saturate = mode === 'satfinite';
  return format === 'e4m3fn' ? encodeE4m3Bits(f32Bits(x), saturate) : encodeE5m2Bits(f32Bits(x), saturate);
}

// ---------------------------------------------------------------------------------------------
// Decode: closed forms, and 256-entry lookup tables built from them.

/** Closed-form E4M3FN decode (NaN for 0x7F/0xFF; ±0 kept). */
export function decodeE4m3Closed(code: number): number {
  const s = code & 0x80 ? -1 : 1;
  const e = (code >>> 3) & 0xf;
  const m = code & 7;
  if (e === 15 && m === 7) return NaN;
  return e === 0 ? s * m * 2 ** -9 : s * (8 + m) * 2 ** (e - 10);
}

/** Closed-form E5M2 decode (±inf for 0x7C/0xFC, NaN for e=31, m≠0). */
export function decodeE5m2Closed(code: number): number {
  const s = code & 0x80 ? -1 : 1;
  const e = (code >>> 2) & 0x1f;
  const m = code & 3;
  if (e === 31) return m === 0 ? s * Infinity : NaN;
  return e === 0 ? s * m * 2 ** -16 : s * (4 + m) * 2 ** (e - 17);
}

function buildLut(decode: (c: number) => number): Float32Array {
  const lut = new Float32Array(256);
  for (let c = 0; c < 256; c++) lut[c] = decode(c);
  return lut;
}

/** Code → value tables (read-only by convention). */
export const FP8_E4M3_DECODE_LUT: Float32Array = buildLut(decodeE4m3Closed);
export const FP8_E5M2_DECODE_LUT: Float32Array = buildLut(decodeE5m2Closed);

export function fp8DecodeLut(format: Fp8Format): Float32Array {
  return format === 'e4m3fn' ? FP8_E4M3_DECODE_LUT : FP8_E5M2_DECODE_LUT;
}

/** FP8 code → value. */
export function decodeFp8(code: number, format: Fp8Format): number {
  return fp8DecodeLut(format)[code & 0xff];
}

// ---------------------------------------------------------------------------------------------
// Arrays with a per-tensor scale (the KV-cache path).

const CHUNK = 4096;
const chunkF32 = new Float32Array(CHUNK);
const chunkU32 = new Uint32Array(chunkF32.buffer);

/**
 * codes[i] = encode(float32(src[i] / scale)). This is vLLM's KV write, `scaled_convert`:
 * `__nv_cvt_float_to_fp8(float(x) / scale, …)` — a float32 IEEE division, then the conversion.
 * The float64 quotient of two float32 values rounded once to float32 equals the float32 quotient
 * (53 ≥ 2·24 + 2, so the double rounding is innocuous); the scale itself is taken as float32.
 */
export function quantizeToFp8Codes(
  src: Float32Array,
  scale: number,
  format: Fp8Format,
  mode: Fp8Mode,
  out: Uint8Array = new Uint8Array(src.length),
): Uint8Array {
  if (out.length !== src.length) throw new RangeError(`length mismatch: ${src.length} in, ${out.length} out`);
  const s = Math.fround(scale);
  const saturate = mode === 'satfinite';
  const encode = format === 'e4m3fn' ? encodeE4m3Bits : encodeE5m2Bits;
  for (let start = 0; start < src.length; start += CHUNK) {
    const n = Math.min(CHUNK, src.length - start);
    for (let i = 0; i < n; i++) chunkF32[i] = src[start + i] / s; // store = fround
    for (let i = 0; i < n; i++) out[start + i] = encode(chunkU32[i], saturate);
  }
  return out;
}

/** Encode float32 values without a scale (scale 1 is exact: x / 1 = x). */
export function encodeFp8Array(
  src: Float32Array,
  format: Fp8Format,
  mode: Fp8Mode,
  out: Uint8Array = new Uint8Array(src.length),
): Uint8Array {
  if (out.length !== src.length) throw new RangeError(`length mismatch: ${src.length} in, ${out.length} out`);
  const u = new Uint32Array(src.buffer, src.byteOffset, src.length);
  const saturate = mode === 'satfinite';
  const encode = format === 'e4m3fn' ? encodeE4m3Bits : encodeE5m2Bits;
  for (let i = 0; i < u.length; i++) out[i] = encode(u[i], saturate);
  return out;
}

/**
 * out[i] = float32(decode(codes[i]) · scale): vLLM's dequant, an fp32 multiply after the
 * FP8 → float conversion (exact). Pass scale 1 for a plain decode.
 */
export function dequantizeFp8(
  codes: Uint8Array,
  scale: number,
  format: Fp8Format,
  out: Float32Array = new Float32Array(codes.length),
): Float32Array {
  if (out.length !== codes.length)
    throw new RangeError(`length mismatch: ${codes.length} in, ${out.length} out`);
  const lut = fp8DecodeLut(format);
  const s = Math.fround(scale);
  for (let i = 0; i < codes.length; i++) out[i] = lut[codes[i]] * s;
  return out;
}

/** Round each value to the nearest FP8 value of the format (encode then decode), in place. */
export function roundArrayToFp8(a: Float32Array, format: Fp8Format, mode: Fp8Mode): void {
  const lut = fp8DecodeLut(format);
  const u = new Uint32Array(a.buffer, a.byteOffset, a.length);
  const saturate = mode === 'satfinite';
  const encode = format === 'e4m3fn' ? encodeE4m3Bits : encodeE5m2Bits;
  for (let i = 0; i < u.length; i++) a[i] = lut[encode(u[i], saturate)];
}

/** Exposed for tests and sweeps that already hold float32 bit patterns. */
export function encodeFp8FromF32Bits(bits: number, format: Fp8Format, mode: Fp8Mode): number {
  const saturate = mode === 'satfinite';
  return format === 'e4m3fn' ? encodeE4m3Bits(bits >>> 0, saturate) : encodeE5m2Bits(bits >>> 0, saturate);
}
