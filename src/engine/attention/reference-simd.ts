/**
 * referenceAttention on the WebAssembly SIMD kernels (wasm/attention-kernels.ts): the same
 * arithmetic as the JS loop in reference.ts, bit for bit. Per KV head, the K/V rows every query row
 * of the request reads are loaded once (scales applied in float64); then, per row and pair of query
 * heads, the kernel computes both heads' dot products (a lane per head, float64, in order of d), JS
 * scales them, takes the max and Math.exp of each score and sums the denominators in order of j, and
 * the kernel accumulates P·V (float64, in order of j). An unpaired head runs in both lanes.
 */
import type { AttentionKernels } from '../wasm/attention-kernels.js';
import { keyRange, rowPosition, type AttentionLayer, type AttentionRequest } from './backend.js';

export function referenceAttentionSimd(kernels: AttentionKernels, q: Float32Array, out: Float32Array, req: AttentionRequest, layer: AttentionLayer): void {
  const { numHeads: Hq, numKvHeads: Hkv, headDim: hd, windowLeft, smScale } = layer;
  const ks = layer.kvDtype === 'fp8_e4m3' ? Math.fround(layer.scales.k) : 1;
  const vs = layer.kvDtype === 'fp8_e4m3' ? Math.fround(layer.scales.v) : 1;
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
