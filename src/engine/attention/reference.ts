/**
 * The reference backend: exact attention, float64 throughout, on the K/V the cache stores
 * (FP8 values dequantized with their per-tensor scales). Two passes per (row, head): scores and
 * their max, then the normalised weighted sum of V. Each row has its own window.
 */
import { keyRange, rowPosition, type AttentionBackend, type AttentionLayer, type AttentionRequest } from './backend.js';

export function createReferenceBackend(): AttentionBackend {
  const backend: AttentionBackend = {
    name: 'reference',
    supportsSpecAsDecode: true,
    run(q, out, requests, layer, phase) {
      for (const req of requests) referenceAttention(q, out, req, layer);
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

/** out rows of one request = softmax(sm · q · Kᵀ over the row's window) · V, all in float64. */
export function referenceAttention(q: Float32Array, out: Float32Array, req: AttentionRequest, layer: AttentionLayer): void {
  const { numHeads: Hq, numKvHeads: Hkv, headDim: hd, windowLeft, smScale } = layer;
  const ks = layer.kvDtype === 'fp8_e4m3' ? Math.fround(layer.scales.k) : 1;
  const vs = layer.kvDtype === 'fp8_e4m3' ? Math.fround(layer.scales.v) : 1;
  const { view } = req;
  const kv = view.values;
  const scores = new Float64Array(req.seqLen);
  const acc = new Float64Array(hd);
  for (let t = 0; t < req.qLen; t++) {
    const { lo, hi } = keyRange(rowPosition(req, t), windowLeft);
    for (let h = 0; h < Hq; h++) {
      const g = Math.floor(h / (Hq / Hkv));
      const qo = ((req.rowStart + t) * Hq + h) * hd;
      let max = -Infinity;
      for (let j = lo; j <= hi; j++) {
        const ko = view.keyOffset(j, g);
        let dot = 0;
        for (let d = 0; d < hd; d++) dot += q[qo + d] * (kv[ko + d] * ks);
        scores[j] = dot * smScale;
        if (scores[j] > max) max = scores[j];
      }
      acc.fill(0);
      let den = 0;
      for (let j = lo; j <= hi; j++) {
        const p = Math.exp(scores[j] - max);
        den += p;
        const vo = view.valueOffset(j, g);
        for (let d = 0; d < hd; d++) acc[d] += p * (kv[vo + d] * vs);
      }
      for (let d = 0; d < hd; d++) out[qo + d] = acc[d] / den;
    }
  }
}
