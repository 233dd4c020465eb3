/**
 * referenceAttention takes the query heads that share a KV head two at a time (one load of each K/V
 * element for both). That must not change a single bit: compare with the plain one-head-at-a-time
 * loop (below, the previous implementation) on MHA, GQA with even and odd group sizes, windows,
 * multi-row requests, BF16 and FP8 caches.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keyRange, rowPosition, type AttentionLayer, type AttentionRequest } from './backend.js';
import { referenceAttention } from './reference.js';
import { buildCase } from './testing.js';

function oneHeadAtATime(q: Float32Array, out: Float32Array, req: AttentionRequest, layer: AttentionLayer): void {
  const { numHeads: Hq, numKvHeads: Hkv, headDim: hd, windowLeft, smScale } = layer;
  const ks = layer.kvDtype === 'fp8_e4m3' ? Math.fround(layer.scales.k) : 1;
  const vs = layer.kvDtype === 'fp8_e4m3' ? Math.fround(layer.scales.v) : 1;
  const kv = req.view.values;
  const scores = new Float64Array(req.seqLen);
  const acc = new Float64Array(hd);
  for (let t = 0; t < req.qLen; t++) {
    const { lo, hi } = keyRange(rowPosition(req, t), windowLeft);
    for (let h = 0; h < Hq; h++) {
      const g = Math.floor(h / (Hq / Hkv));
      const qo = ((req.rowStart + t) * Hq + h) * hd;
      let max = -Infinity;
      for (let j = lo; j <= hi; j++) {
        const ko = req.view.keyOffset(j, g);
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
        const vo = req.view.valueOffset(j, g);
        for (let d = 0; d < hd; d++) acc[d] += p * (kv[vo + d] * vs);
      }
      for (let d = 0; d < hd; d++) out[qo + d] = acc[d] / den;
    }
  }
}

for (const [Hq, Hkv] of [[4, 4], [4, 2], [6, 2], [8, 1], [3, 1]])
  for (const kvDtype of ['bf16', 'fp8_e4m3'] as const)
    test(`two heads at a time ≡ one head at a time, bit for bit (Hq ${Hq}, Hkv ${Hkv}, ${kvDtype})`, () => {
      for (const windowLeft of [-1, 0, 7, 40]) {
        const built = buildCase({
          seed: Hq * 10 + Hkv + windowLeft,
          numHeads: Hq,
          numKvHeads: Hkv,
          headDim: 24,
          windowLeft,
          smScale: 24 ** -0.5,
          scales: { q: 1, k: 0.07, v: 0.03 },
          kvDtype,
          pageSize: 16,
          qkStd: 2,
          requests: [{ seqLen: 57, qLen: 6 }, { seqLen: 3, qLen: 3 }, { seqLen: 90, qLen: 1 }],
        });
        const a = new Float32Array(built.q.length), b = new Float32Array(built.q.length);
        for (const r of built.requests) {
          referenceAttention(built.q, a, r, built.layer);
          oneHeadAtATime(built.q, b, r, built.layer);
        }
        assert.deepEqual(new Uint32Array(a.buffer), new Uint32Array(b.buffer), `window_left ${windowLeft}`);
      }
    });
