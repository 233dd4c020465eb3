/**
 * The native matmul addon (native/kernels.c, built by `npm ci` through scripts/build-native.mjs), or
 * null where it was not built, does not load, or the CPU has neither AVX-512 nor AVX2. Output by
 * output it is bit-identical to the WebAssembly SIMD kernels (tested), and it reads BF16 weights
 * directly, so a BF16 checkpoint's matmul weights take half the memory traffic. Its BF16 rounding and
 * FP8 KV store give the JS functions' bits (tested), so ops.ts and the caches use them where loaded.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export interface NativeKernels {
  /**
   * out[n, O] = x[n, D] · w[O, D]ᵀ; w as float32 or as BF16 bits (the upper halves of float32s). A
   * float32 w registered with setBf16 is read from its BF16 copy.
   */
  matmul(out: Float32Array, x: Float32Array, w: Float32Array | Uint16Array, n: number, D: number, O: number): void;
  /** ops.ts rmsNorm (out may alias x), the same bits. */
  rmsNorm(out: Float32Array, x: Float32Array, w: Float32Array, rows: number, dim: number, eps: number): void;
  /** ops.ts roundBf16 (RNE on the float32 bits), the same bits. */
  roundBf16(x: Float32Array, len: number): void;
  /** codes[at + i] = satfinite E4M3 of float32(src[srcOff + i] / scale), values[at + i] = lut[code], i < n (kv-cache/cache.ts storeElement). */
  storeFp8(codes: Uint8Array, values: Float32Array, at: number, src: Float32Array, srcOff: number, n: number, scale: number, lut: Float32Array): void;
  /**
   * The reference attention's two float64 passes for query row t of a request (seqLen keys with
   * its qLen new rows: the row sits at seqLen − qLen + t and sees the keys of reference.ts
   * keyRange), every head pair of every KV head (attention/reference-backend.ts
   * referenceAttentionNative): K and V read in place from a paged HND layer `kv` through the
   * sequence's block `table`. attnDots writes scores [pairs][n][2] and their maxima [pairs][2] and
   * returns n, the row's key count; JS turns the scores into exponentials and sums their
   * denominators [pairs][2]; attnPv writes out[outAt + h·hd + d].
   */
  attnDots(kv: Float32Array, table: Int32Array, seqLen: number, qLen: number, t: number, windowLeft: number, Hq: number, Hkv: number, hd: number, P: number, q: Float32Array, qAt: number, ks: number, sm: number, scores: Float64Array, maxes: Float64Array): number;
  attnPv(kv: Float32Array, table: Int32Array, seqLen: number, qLen: number, t: number, windowLeft: number, Hq: number, Hkv: number, hd: number, P: number, weights: Float64Array, dens: Float64Array, vs: number, out: Float32Array, outAt: number): void;
  /** Registers `bits` (w's values as BF16: the upper 16 bits of each float32) as w's copy for matmul, on this thread. */
  setBf16(w: Float32Array, bits: Uint16Array): void;
  /** The instruction set the addon picked at load: 'avx512' | 'avx2'. */
  isa: string;
}

const NATIVE_FUNCTIONS = ['matmul', 'rmsNorm', 'roundBf16', 'storeFp8', 'attnDots', 'attnPv', 'setBf16'] as const satisfies readonly (keyof NativeKernels)[];

let cached: NativeKernels | null | undefined;

/** The addon at the package root's build/Release (the same two folders up from src/engine and dist/engine). */
export function nativeKernels(): NativeKernels | null {
  if (cached !== undefined) return cached;
  cached = null;
  if (process.env.FAULTLINE_KERNELS && process.env.FAULTLINE_KERNELS !== 'native') return null;
  try {
    const addon = createRequire(import.meta.url)(fileURLToPath(new URL('../../build/Release/faultline_kernels.node', import.meta.url))) as NativeKernels;
    // An addon built from older sources lacks functions the engine calls: it is not used.
    const complete = NATIVE_FUNCTIONS.every((name) => typeof addon[name] === 'function');
    if (complete && (addon.isa === 'avx512' || addon.isa === 'avx2')) cached = addon;
  } catch {
    // not built here: the WebAssembly kernels run instead
  }
  return cached;
}
