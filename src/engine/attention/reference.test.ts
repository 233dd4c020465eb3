import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createReferenceBackend } from './reference-backend.js';
import { buildCase, runBackend } from './testing.js';

/** A second, naive statement of the maths: a full score row with −∞ outside the mask (HF-style). */
function naive(built: ReturnType<typeof buildCase>, ks: number, vs: number): Float64Array {
  const { layer, q, requests } = built;
  const { numHeads: Hq, numKvHeads: Hkv, headDim: hd, windowLeft, smScale } = layer;
  const out = new Float64Array(q.length);
  for (const req of requests)
    for (let t = 0; t < req.qLen; t++) {
      const i = req.seqLen - req.qLen + t;
      for (let h = 0; h < Hq; h++) {
        const g = Math.floor((h * Hkv) / Hq);
        const qo = ((req.rowStart + t) * Hq + h) * hd;
        const s = Array.from({ length: req.seqLen }, (_, j) => {
          const visible = j <= i && (windowLeft < 0 || i - j <= windowLeft);
          if (!visible) return -Infinity;
          let dot = 0;
          for (let d = 0; d < hd; d++) dot += q[qo + d] * req.view.values[req.view.keyOffset(j, g) + d] * ks;
          return dot * smScale;
        });
        const m = Math.max(...s);
        const p = s.map((x) => Math.exp(x - m));
        const den = p.reduce((a, b) => a + b, 0);
        for (let d = 0; d < hd; d++) {
          let acc = 0;
          p.forEach((pj, j) => pj > 0 && (acc += pj * req.view.values[req.view.valueOffset(j, g) + d] * vs));
          out[qo + d] = acc / den;
        }
      }
    }
  return out;
}

for (const kvDtype of ['bf16', 'fp8_e4m3'] as const)
  for (const windowLeft of [-1, 0, 5, 20])
    test(`reference = masked softmax with per-row windows (${kvDtype}, window_left ${windowLeft}, GQA 6:2)`, () => {
      const scales = { q: 1, k: 0.1, v: 0.05 };
      const built = buildCase({
        seed: 11 + windowLeft,
        numHeads: 6,
        numKvHeads: 2,
        headDim: 8,
        windowLeft,
        smScale: 8 ** -0.5,
        scales,
        kvDtype,
        pageSize: 16,
        requests: [{ seqLen: 37, qLen: 5 }, { seqLen: 9, qLen: 9 }, { seqLen: 70, qLen: 1 }],
      });
      const out = runBackend(createReferenceBackend(), built, { kind: 'prefill' });
      const ks = kvDtype === 'fp8_e4m3' ? Math.fround(scales.k) : 1;
      const vs = kvDtype === 'fp8_e4m3' ? Math.fround(scales.v) : 1;
      const want = naive(built, ks, vs);
      for (let i = 0; i < out.length; i++) assert.ok(Math.abs(out[i] - want[i]) <= 1e-6 * (1 + Math.abs(want[i])), `element ${i}`);
    });

test('window_left 0 attends only the row itself: output = its own V', () => {
  const built = buildCase({
    seed: 3, numHeads: 2, numKvHeads: 1, headDim: 4, windowLeft: 0, smScale: 1,
    scales: { q: 1, k: 1, v: 1 }, kvDtype: 'bf16', pageSize: 16, requests: [{ seqLen: 20, qLen: 3 }],
  });
  const out = runBackend(createReferenceBackend(), built, { kind: 'prefill' });
  const { view } = built.requests[0];
  for (let t = 0; t < 3; t++)
    for (let h = 0; h < 2; h++)
      for (let d = 0; d < 4; d++) assert.equal(out[(t * 2 + h) * 4 + d], view.values[view.valueOffset(17 + t, 0) + d]);
});
