/**
 * The reference attention: the statement every attention kernel of the engine is checked against
 * (attention/conformance.test.ts). For one query row of one head, at absolute position p, over the
 * keys the row sees (max(0, p − window_left) ≤ j ≤ p), on the K/V the cache stores (FP8 values
 * multiplied back by their per-tensor scales), everything in float64:
 *
 *   s_j = sm_scale · Σ_d q[d] · K_j[d]          scores, the dot product in order of d
 *   p_j = exp(s_j − max_j s_j)                  softmax weights (two passes: the max first)
 *   o[d] = Σ_j p_j · V_j[d] / Σ_j p_j           the weighted sum of V, in order of j
 *
 * A query head h reads KV head ⌊h / (Hq / Hkv)⌋ (GQA). The backend `reference` runs the fast
 * version (reference-backend.ts: two heads at a time, WebAssembly SIMD), which gives these bits exactly.
 */
import type { KvView } from '../kv-cache/cache.js';
import { keyRange, kvScales, rowPosition, type AttentionLayer, type AttentionRequest } from './backend.js';

/** One (row, head): out[oo …] = softmax(sm · q · Kᵀ) · V over keys lo … hi of KV head g. */
export function attendOneRow(q: Float32Array, qo: number, view: KvView, g: number, lo: number, hi: number, layer: AttentionLayer, out: Float32Array, oo: number): void {
  const { headDim: hd, smScale } = layer;
  const { ks, vs } = kvScales(layer);
  const scores = new Float64Array(hi - lo + 1);
  let max = -Infinity;
  for (let j = lo; j <= hi; j++) {
    const ko = view.keyOffset(j, g);
    let dot = 0;
    for (let d = 0; d < hd; d++) dot += q[qo + d] * (view.values[ko + d] * ks);
    scores[j - lo] = dot * smScale;
    if (scores[j - lo] > max) max = scores[j - lo];
  }
  const acc = new Float64Array(hd);
  let den = 0;
  for (let j = lo; j <= hi; j++) {
    const p = Math.exp(scores[j - lo] - max);
    den += p;
    const vo = view.valueOffset(j, g);
    for (let d = 0; d < hd; d++) acc[d] += p * (view.values[vo + d] * vs);
  }
  for (let d = 0; d < hd; d++) out[oo + d] = acc[d] / den;
}

/** Every row and head of one request, one at a time. */
export function referenceAttentionSpec(q: Float32Array, out: Float32Array, req: AttentionRequest, layer: AttentionLayer): void {
  const { numHeads: Hq, numKvHeads: Hkv, headDim: hd, windowLeft } = layer;
  for (let t = 0; t < req.qLen; t++) {
    const { lo, hi } = keyRange(rowPosition(req, t), windowLeft);
    for (let h = 0; h < Hq; h++) {
      const at = ((req.rowStart + t) * Hq + h) * hd;
      attendOneRow(q, at, req.view, Math.floor(h / (Hq / Hkv)), lo, hi, layer, out, at);
    }
  }
}
