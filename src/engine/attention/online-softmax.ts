/**
 * The serving-style attention kernel shared by every emulated FlashInfer path:
 *   O = bmm2 · softmax(bmm1 · Q·Kᵀ) · V over each row's key range,
 * computed like a paged flash-attention kernel: one page-aligned tile of keys at a time, a running
 * max and denominator (online softmax, exp2 with bmm1·log2 e folded in, as trtllm-gen's
 * scaleSoftmaxLog2), float32 state. Q, K, V are the values as stored (FP8 decoded without scale).
 *
 * Not modelled: the GPU's exact accumulation order and the conversion of P to BF16/FP8 before
 * the P·V product; those are benign sub-ulp differences, not what faultline hunts.
 */
import type { KvView } from '../kv-cache/cache.js';

export interface OnlineSoftmaxArgs {
  q: Float32Array; // [rows, Hq, hd] as the kernel reads it
  out: Float32Array; // [rows, Hq, hd]
  view: KvView;
  rowStart: number;
  numHeads: number;
  numKvHeads: number;
  headDim: number;
  pageSize: number; // tile width: tiles start at multiples of it, like pages
  bmm1: number;
  bmm2: number;
  /** When set, K/V are read as bf16(value · scale) (the dequantized mock cache of the prefill fallback). */
  kvTransform: ((x: number, which: 'k' | 'v') => number) | null;
}

/** Scratch a caller reuses across (row, head) pairs: acc [hd], tile logits [pageSize]. */
export interface OnlineSoftmaxScratch {
  acc: Float32Array;
  tileLogits: Float32Array;
}

export function newScratch(headDim: number, pageSize: number): OnlineSoftmaxScratch {
  return { acc: new Float32Array(headDim), tileLogits: new Float32Array(pageSize) };
}

/** One (row, head): keys lo..hi inclusive. */
export function onlineSoftmaxRowHead(a: OnlineSoftmaxArgs, row: number, head: number, lo: number, hi: number, scratch: OnlineSoftmaxScratch): void {
  const { q, out, view, headDim: hd, pageSize: P, kvTransform } = a;
  const { acc, tileLogits: s } = scratch;
  const kv = view.values;
  const g = Math.floor(head / (a.numHeads / a.numKvHeads));
  const qo = ((a.rowStart + row) * a.numHeads + head) * hd;
  const scaleLog2 = Math.fround(a.bmm1 * Math.LOG2E);
  let m = -Infinity;
  let l = 0;
  acc.fill(0);
  for (let tile = Math.floor(lo / P) * P; tile <= hi; tile += P) {
    const j0 = Math.max(lo, tile), j1 = Math.min(hi, tile + P - 1);
    let tileMax = -Infinity;
    // a tile lies within one page, where offsets are affine in the position (KvView contract;
    // stride hd in HND, Hkv·hd in NHD)
    const k0 = view.keyOffset(j0, g), v0 = view.valueOffset(j0, g);
    const kStride = j1 > j0 ? view.keyOffset(j0 + 1, g) - k0 : 0;
    const vStride = j1 > j0 ? view.valueOffset(j0 + 1, g) - v0 : 0;
    for (let j = j0; j <= j1; j++) {
      const ko = k0 + (j - j0) * kStride;
      let dot = 0;
      if (kvTransform) for (let d = 0; d < hd; d++) dot += q[qo + d] * kvTransform(kv[ko + d], 'k');
      else for (let d = 0; d < hd; d++) dot += q[qo + d] * kv[ko + d];
      // float32 Q·K, then the exponent in base 2 (scaleSoftmaxLog2 = bmm1 · log2 e)
      const x = Math.fround(Math.fround(dot) * scaleLog2);
      s[j - j0] = x;
      if (x > tileMax) tileMax = x;
    }
    const mNew = Math.max(m, tileMax);
    const corr = Math.fround(2 ** (m - mNew)); // 0 on the first tile (m = −∞)
    l = Math.fround(l * corr);
    for (let d = 0; d < hd; d++) acc[d] *= corr;
    for (let j = j0; j <= j1; j++) {
      const p = Math.fround(2 ** (s[j - j0] - mNew));
      l = Math.fround(l + p);
      const vo = v0 + (j - j0) * vStride;
      if (kvTransform) for (let d = 0; d < hd; d++) acc[d] += p * kvTransform(kv[vo + d], 'v');
      else for (let d = 0; d < hd; d++) acc[d] += p * kv[vo + d];
    }
    m = mNew;
  }
  const gain = Math.fround(a.bmm2);
  for (let d = 0; d < hd; d++) out[qo + d] = Math.fround(acc[d] / l) * gain;
}
