/**
 * The KV-cache interface both implementations (paged, contiguous) satisfy, and the one place
 * where a K/V value is converted to the cache dtype.
 *
 * A cache stores, per layer and position, the K and V vectors of every KV head in its dtype:
 * - `fp32`: as computed (the exact mode of the golden check);
 * - `bf16`: RNE to BF16 (no scale: vLLM applies k/v scales only to quantized caches);
 * - `fp8_e4m3`: `satfinite_e4m3(float32(x / scale))`, vLLM's `reshape_and_cache_flash` write.
 * Kernels read `values`: the stored value decoded to a number **without** its scale (what an FP8
 * attention kernel reads); `dequantScale` says what to multiply by to get K/V back.
 */
import { roundToBf16, f32ToBf16Bits } from '../../numerics/bf16.js';
import { encodeFp8, FP8_E4M3_DECODE_LUT } from '../../numerics/fp8.js';
import { nativeKernels } from '../native.js';

export type KvDtype = 'fp32' | 'bf16' | 'fp8_e4m3';

export interface KvCacheSpec {
  numLayers: number;
  numKvHeads: number; // Hkv
  headDim: number; // hd
  dtype: KvDtype;
  /** Tokens per block (16/32/64). The contiguous cache has no blocks but keeps it for kernels that care. */
  pageSize: number;
  /** Per-layer per-tensor scales from the checkpoint (1.0 when absent); used only by the fp8 dtype. */
  scales: { k: number; v: number }[];
  /** Per-layer dtype where it differs from `dtype` (vLLM's --kv-cache-dtype-skip-layers). */
  layerDtypes?: readonly KvDtype[];
}

/** The dtype layer `layer` stores its K/V in. */
export function layerDtype(spec: KvCacheSpec, layer: number): KvDtype {
  return spec.layerDtypes?.[layer] ?? spec.dtype;
}

/**
 * One sequence's K/V of one layer, as an attention kernel reads it. Within one page (positions
 * k·pageSize … (k+1)·pageSize − 1) offsets are affine in the position: offset(pos + 1) − offset(pos)
 * is the same for every pos of the page (hd in the HND caches here, Hkv·hd in an NHD dump), for keys
 * and for values; the paged kernel walks a page by that stride.
 */
export interface KvView {
  /** Stored values, decoded, no scale applied. */
  readonly values: Float32Array;
  /** Index of K[pos, kvHead, 0] in `values` (hd consecutive values follow). */
  keyOffset(pos: number, kvHead: number): number;
  /** Index of V[pos, kvHead, 0] in `values`. */
  valueOffset(pos: number, kvHead: number): number;
  /** Tokens stored for the sequence. */
  readonly length: number;
  /**
   * Set where `values` is a paged HND layer ([block, 2 (K, V), Hkv, pageSize, hd]): the sequence's
   * blocks in order, so a native kernel can find K and V itself.
   */
  readonly blocks?: readonly number[];
}

export interface KvCache {
  readonly spec: KvCacheSpec;
  /** Tokens stored for a sequence (0 when unknown). */
  length(seqId: number): number;
  /** Room for positions [length, newLen), then length = newLen. Throws KvCacheFullError when out of blocks. */
  extend(seqId: number, newLen: number): void;
  /** Writes K and V ([Hkv·hd] each, starting at kOff / vOff) of position pos of one layer. */
  write(layer: number, seqId: number, pos: number, k: Float32Array, kOff: number, v: Float32Array, vOff: number): void;
  view(layer: number, seqId: number): KvView;
  /** Drops positions ≥ newLen (rejected drafts); frees what is no longer needed. */
  truncate(seqId: number, newLen: number): void;
  /** Forgets the sequence and frees its storage (`aborted`: the request was cancelled; stateful fault models may treat that apart). */
  free(seqId: number, aborted?: boolean): void;
}

export class KvCacheFullError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KvCacheFullError';
  }
}

/** Multiplier from stored value to real K (or V): the scale for FP8, 1 otherwise. */
export function dequantScale(spec: KvCacheSpec, layer: number, which: 'k' | 'v'): number {
  return layerDtype(spec, layer) === 'fp8_e4m3' ? Math.fround(spec.scales[layer][which]) : 1;
}

export type CodeArray = Float32Array | Uint16Array | Uint8Array;

export function newCodeArray(dtype: KvDtype, length: number): CodeArray {
  if (dtype === 'fp8_e4m3') return new Uint8Array(length);
  if (dtype === 'bf16') return new Uint16Array(length);
  return new Float32Array(length);
}

const native = nativeKernels();

/**
 * Stores n consecutive elements src[srcOff …] at indices at … of `codes` / `values` (storeElement
 * each). `lut` is the FP8 decode table (FP8_E4M3_DECODE_LUT), passed in so that on the native addon
 * the addon's own function is the store, with no JS layer per write.
 */
export type StoreRun = (codes: CodeArray, values: Float32Array, at: number, src: Float32Array, srcOff: number, n: number, scale: number, lut: Float32Array) => void;

/** The store of one dtype, chosen once per layer when a cache is built: for FP8 the native addon's (the same bits) where it is built, else the JS loop. */
export function storeRunFor(dtype: KvDtype): StoreRun {
  if (dtype === 'fp8_e4m3' && native) return native.storeFp8.bind(native) as StoreRun;
  return (codes, values, at, src, srcOff, n, scale) => {
    for (let i = 0; i < n; i++) storeElement(dtype, src[srcOff + i], scale, codes, values, at + i);
  };
}

/**
 * Stores x (a float32 K or V element) at index i: the raw code into `codes`, its decoded value
 * (no scale) into `values`. `scale` is the layer's k or v scale (fp8 only).
 */
export function storeElement(dtype: KvDtype, x: number, scale: number, codes: CodeArray, values: Float32Array, i: number): void {
  if (dtype === 'fp8_e4m3') {
    const code = encodeFp8(Math.fround(x) / Math.fround(scale), 'e4m3fn', 'satfinite');
    codes[i] = code;
    values[i] = FP8_E4M3_DECODE_LUT[code];
  } else if (dtype === 'bf16') {
    codes[i] = f32ToBf16Bits(x);
    values[i] = roundToBf16(x);
  } else {
    codes[i] = x;
    values[i] = x;
  }
}
