/**
 * The `reference` backend: the reference attention (reference.ts) made fast and bit-identical to it
 * (attention/conformance.test.ts checks every bit): the query heads that share a KV head are taken
 * two at a time — in the native addon reading a paged cache in place (referenceAttentionNative), on
 * WebAssembly SIMD (referenceAttentionSimd), else in the JS loop (referenceAttentionPairs).
 */
import { nativeKernels, type NativeKernels } from '../native.js';
import { attentionKernels, MAX_KV_ELEMENTS, type AttentionKernels } from '../wasm/attention-kernels.js';
import { keyRange, kvScales, rowPosition, type AttentionBackend, type AttentionLayer, type AttentionRequest } from './backend.js';

/** 'wasm-simd' (default): the native or SIMD kernels where they apply; 'js': the JS loop below. All give the spec's bits. */
export type AttentionKernelChoice = 'js' | 'wasm-simd';

export function createReferenceBackend(options: { kernels?: AttentionKernelChoice } = {}): AttentionBackend {
  const attend = options.kernels === 'js' ? referenceAttentionPairs : referenceAttention;
  const backend: AttentionBackend = {
    name: 'reference',
    supportsSpecAsDecode: true,
    run(q, out, requests, layer, phase) {
      for (const req of requests) attend(q, out, req, layer);
      backend.onCall?.({
        layer: layer.index,
        phase,
        kernel: 'reference',
        qDtype: 'fp32',
        bmm1: layer.smScale,
        bmm2: 1,
        dequantizeKvFirst: true,
        faultyPairs: [],
      });
    },
  };
  return backend;
}

const native = nativeKernels();

/** Scratch reused across calls (grown, never shrunk): scores of two heads, their V accumulators. */
let scores0 = new Float64Array(0),
  scores1 = new Float64Array(0),
  acc0 = new Float64Array(0),
  acc1 = new Float64Array(0);

/**
 * out rows of one request = softmax(sm · q · Kᵀ over the row's window) · V, all in float64: on the
 * SIMD kernels (referenceAttentionSimd below) where WebAssembly SIMD is available, the query heads split evenly
 * over the KV heads and the keys fit the kernel memory, else the JS loop; the two agree to the bit
 * (attention/conformance.test.ts).
 */
export function referenceAttention(q: Float32Array, out: Float32Array, req: AttentionRequest, layer: AttentionLayer): void {
  if (native && req.view.blocks && layer.numHeads % layer.numKvHeads === 0) return referenceAttentionNative(native, q, out, req, layer);
  const fits = layer.numHeads % layer.numKvHeads === 0 && req.seqLen * layer.headDim <= MAX_KV_ELEMENTS;
  const kernels = fits ? attentionKernels() : null;
  if (kernels) referenceAttentionSimd(kernels, q, out, req, layer);
  else referenceAttentionPairs(q, out, req, layer);
}

/**
 * The JS loop: the query heads that share a KV head (GQA) are taken two at a time, so each
 * dequantized K and V element is loaded once for both; every head's arithmetic is still its own
 * sequence of float64 operations in the spec's order (dot products over d, then over j), so the
 * result is the same to the bit.
 */
export function referenceAttentionPairs(q: Float32Array, out: Float32Array, req: AttentionRequest, layer: AttentionLayer): void {
  const { numHeads: Hq, numKvHeads: Hkv, headDim: hd, windowLeft, smScale } = layer;
  const { ks, vs } = kvScales(layer);
  const { view } = req;
  const kv = view.values;
  if (scores0.length < req.seqLen) {
    scores0 = new Float64Array(req.seqLen);
    scores1 = new Float64Array(req.seqLen);
  }
  if (acc0.length < hd) {
    acc0 = new Float64Array(hd);
    acc1 = new Float64Array(hd);
  }
  const s0 = scores0, s1 = scores1, a0 = acc0, a1 = acc1;
  const perKv = Hq / Hkv;
  for (let t = 0; t < req.qLen; t++) {
    const { lo, hi } = keyRange(rowPosition(req, t), windowLeft);
    for (let h = 0; h < Hq; ) {
      const g = Math.floor(h / perKv);
      // a pair when the next head reads the same KV head
      const pair = h + 1 < Hq && Math.floor((h + 1) / perKv) === g;
      const qo0 = ((req.rowStart + t) * Hq + h) * hd;
      const qo1 = pair ? qo0 + hd : qo0;
      let max0 = -Infinity,
        max1 = -Infinity;
      for (let j = lo; j <= hi; j++) {
        const ko = view.keyOffset(j, g);
        let dot0 = 0,
          dot1 = 0;
        for (let d = 0; d < hd; d++) {
          const k = kv[ko + d] * ks;
          dot0 += q[qo0 + d] * k;
          dot1 += q[qo1 + d] * k;
        }
        s0[j] = dot0 * smScale;
        s1[j] = dot1 * smScale;
        if (s0[j] > max0) max0 = s0[j];
        if (s1[j] > max1) max1 = s1[j];
      }
      a0.fill(0, 0, hd);
      a1.fill(0, 0, hd);
      let den0 = 0,
        den1 = 0;
      for (let j = lo; j <= hi; j++) {
        const p0 = Math.exp(s0[j] - max0);
        const p1 = Math.exp(s1[j] - max1);
        den0 += p0;
        den1 += p1;
        const vo = view.valueOffset(j, g);
        for (let d = 0; d < hd; d++) {
          const v = kv[vo + d] * vs;
          a0[d] += p0 * v;
          a1[d] += p1 * v;
        }
      }
      for (let d = 0; d < hd; d++) out[qo0 + d] = a0[d] / den0;
      if (pair) for (let d = 0; d < hd; d++) out[qo1 + d] = a1[d] / den1;
      h += pair ? 2 : 1;
    }
  }
}

/**
 * The SIMD path: the same arithmetic as the JS loop, bit for bit. Per KV head, the K/V rows every
 * query row of the request reads are loaded once (scales applied in float64); then, per row and pair
 * of query heads, the kernel computes both heads' dot products (a lane per head, float64, in order of
 * d), JS scales them, takes the max and Math.exp of each score and sums the denominators in order of
 * j, and the kernel accumulates P·V (float64, in order of j). An unpaired head runs in both lanes.
 */
export function referenceAttentionSimd(kernels: AttentionKernels, q: Float32Array, out: Float32Array, req: AttentionRequest, layer: AttentionLayer): void {
  const { numHeads: Hq, numKvHeads: Hkv, headDim: hd, windowLeft, smScale } = layer;
  const { ks, vs } = kvScales(layer);
  const perKv = Hq / Hkv;
  // rows' ranges only move forward: the union is [lo of the first row, hi of the last]
  const first = keyRange(rowPosition(req, 0), windowLeft).lo;
  const last = rowPosition(req, req.qLen - 1);
  const passes = req.qLen * Math.ceil(perKv / 2);
  for (let g = 0; g < Hkv; g++) {
    kernels.loadKv(req.view, g, first, last, layer.pageSize, hd, ks, vs, passes);
    const m = kernels.f64;
    const { q: qAt, scores: sAt, acc0, acc1 } = kernels.at;
    for (let t = 0; t < req.qLen; t++) {
      const { lo, hi } = keyRange(rowPosition(req, t), windowLeft);
      const n = hi - lo + 1;
      const sEnd = sAt + 2 * n;
      for (let h = g * perKv; h < (g + 1) * perKv; h += 2) {
        const qo0 = ((req.rowStart + t) * Hq + h) * hd;
        const qo1 = h + 1 < (g + 1) * perKv ? qo0 + hd : qo0;
        for (let d = 0; d < hd; d++) {
          m[qAt + 2 * d] = q[qo0 + d];
          m[qAt + 2 * d + 1] = q[qo1 + d];
        }
        kernels.dots(lo - first, n);
        let max0 = -Infinity,
          max1 = -Infinity;
        for (let i = sAt; i < sEnd; i += 2) {
          const s0 = (m[i] = m[i] * smScale);
          const s1 = (m[i + 1] = m[i + 1] * smScale);
          if (s0 > max0) max0 = s0;
          if (s1 > max1) max1 = s1;
        }
        let den0 = 0,
          den1 = 0;
        for (let i = sAt; i < sEnd; i += 2) {
          const p0 = (m[i] = Math.exp(m[i] - max0));
          const p1 = (m[i + 1] = Math.exp(m[i + 1] - max1));
          den0 += p0;
          den1 += p1;
        }
        kernels.pvExact(lo - first, n);
        for (let d = 0; d < hd; d++) out[qo0 + d] = m[acc0 + d] / den0;
        if (qo1 !== qo0) for (let d = 0; d < hd; d++) out[qo1 + d] = m[acc1 + d] / den1;
      }
    }
  }
}

/** Scratch of the native path (grown, never shrunk): scores then weights [pairs][keys][2], maxima and denominators [pairs][2], the block table. */
let nScores = new Float64Array(0),
  nMaxes = new Float64Array(0),
  nDens = new Float64Array(0),
  nTable = new Int32Array(0);

/** A layer's K/V scales, once per layer (an engine keeps its layers for its life). */
const layerScales = new WeakMap<AttentionLayer, { ks: number; vs: number }>();

/**
 * The native path, for a paged cache: per query row the addon computes every head pair's scores
 * over the row's key range (float64 chains in order of d, K read in place through the block table),
 * JS takes Math.exp of each score less its pair's maximum and sums the denominators in order of j,
 * and the addon accumulates P·V in order of j and divides: the JS loop's operations, bit for bit.
 */
export function referenceAttentionNative(native: NativeKernels, q: Float32Array, out: Float32Array, req: AttentionRequest, layer: AttentionLayer): void {
  const { numHeads: Hq, numKvHeads: Hkv, headDim: hd, windowLeft, smScale, pageSize: P } = layer;
  let scales = layerScales.get(layer);
  if (!scales) layerScales.set(layer, (scales = kvScales(layer)));
  const blocks = req.view.blocks!;
  if (nTable.length < blocks.length) nTable = new Int32Array(blocks.length * 2);
  for (let i = 0; i < blocks.length; i++) nTable[i] = blocks[i];
  const lanes = 2 * Hkv * Math.ceil(Hq / Hkv / 2);
  if (nMaxes.length < lanes) [nMaxes, nDens] = [new Float64Array(lanes), new Float64Array(lanes)];
  if (nScores.length < lanes * req.seqLen) nScores = new Float64Array(lanes * req.seqLen * 2);
  const kv = req.view.values, s = nScores, { seqLen, qLen } = req;
  for (let t = 0; t < qLen; t++) {
    const rowAt = (req.rowStart + t) * Hq * hd;
    const n = native.attnDots(kv, nTable, seqLen, qLen, t, windowLeft, Hq, Hkv, hd, P, q, rowAt, scales.ks, smScale, s, nMaxes);
    for (let lane = 0; lane < lanes; lane++) {
      const max = nMaxes[lane];
      const end = (lane >> 1) * 2 * n + 2 * n;
      let den = 0;
      for (let i = (lane >> 1) * 2 * n + (lane & 1); i < end; i += 2) den += s[i] = Math.exp(s[i] - max);
      nDens[lane] = den;
    }
    native.attnPv(kv, nTable, seqLen, qLen, t, windowLeft, Hq, Hkv, hd, P, s, nDens, scales.vs, out, rowAt);
  }
}
