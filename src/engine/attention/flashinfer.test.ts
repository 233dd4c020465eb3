import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AttentionPhase } from './backend.js';
import { createFlashinferBackend, quantizeQuery, routeFlashinfer, type FlashinferOptions } from './flashinfer.js';
import { createReferenceBackend } from './reference-backend.js';
import { buildCase, nhdRequest, runBackend, type AttentionCase } from './testing.js';

const fixedBf16Q: FlashinferOptions = { bookkeeping: 'fixed', faultModel: null, disableQQuantization: true, useTrtllmAttention: null };
const decode = (n: number): AttentionPhase => ({ kind: 'decode', qLenPerReq: n });
const prefill: AttentionPhase = { kind: 'prefill' };

function baseCase(over: Partial<AttentionCase> = {}): AttentionCase {
  return {
    seed: 5,
    numHeads: 4,
    numKvHeads: 2,
    headDim: 32,
    windowLeft: 31,
    smScale: 32 ** -0.5,
    scales: { q: 1, k: 1, v: 1 },
    kvDtype: 'bf16',
    pageSize: 16,
    requests: [{ seqLen: 150, qLen: 8 }, { seqLen: 41, qLen: 8 }],
    vStd: 2,
    ...over,
  };
}

describe('routing on SM100 (vllm-flashinfer.md §1.4–1.6)', () => {
  const cases: [Partial<FlashinferOptions>, boolean, AttentionPhase, string, string][] = [
    // options, kv fp8, phase → kernel, q dtype
    [{}, true, decode(8), 'trtllm-gen-decode', 'bf16'],
    [{}, true, prefill, 'native-prefill', 'bf16'],
    [{ disableQQuantization: false }, true, decode(8), 'trtllm-gen-decode', 'fp8'],
    [{ disableQQuantization: false }, true, prefill, 'trtllm-gen-context', 'fp8'],
    [{ useTrtllmAttention: true }, true, prefill, 'trtllm-gen-context', 'bf16'],
    [{ useTrtllmAttention: false, disableQQuantization: false }, true, decode(1), 'native-decode', 'bf16'],
    [{}, false, prefill, 'trtllm-gen-context', 'bf16'],
    [{ disableQQuantization: false }, false, decode(1), 'trtllm-gen-decode', 'bf16'],
  ];
  for (const [over, fp8, phase, kernel, qDtype] of cases)
    test(`${JSON.stringify(over)} kv ${fp8 ? 'fp8' : 'bf16'} ${phase.kind} → ${kernel}, Q ${qDtype}`, () => {
      assert.deepEqual(routeFlashinfer(phase, fp8, { ...fixedBf16Q, ...over }), { kernel, qDtype });
    });
});

test('query quantization: x · (1/q_scale), clamp ±448, satfinite E4M3', () => {
  assert.equal(quantizeQuery(1.1, 1), 1.125);
  assert.equal(quantizeQuery(10, 0.01), 448); // 1000 clamps
  assert.equal(quantizeQuery(-10, 0.01), -448);
  assert.equal(quantizeQuery(0.3, 0.5), 0.625); // 0.6 → 0.625 (step 1/16 on [0.5, 1))
});

describe('flashinfer ≈ reference (same stored K/V)', () => {
  // Tolerance 1e-5 (abs, outputs |o| ≲ 6): the emulated kernel keeps float32 state (online softmax,
  // exp2, fp32 accumulators) where the reference uses float64; over ≤ 160 keys that is ~1e-6.
  for (const pageSize of [16, 32, 64])
    for (const windowLeft of [-1, 31])
      for (const phase of [decode(8), prefill])
        test(`BF16 KV, page ${pageSize}, window_left ${windowLeft}, ${phase.kind}: within 1e-5`, () => {
          const built = buildCase(baseCase({ pageSize, windowLeft }));
          const ref = runBackend(createReferenceBackend(), built, phase);
          const fi = runBackend(createFlashinferBackend(fixedBf16Q), built, phase);
          for (let i = 0; i < ref.length; i++) assert.ok(Math.abs(fi[i] - ref[i]) <= 1e-5, `element ${i}: ${fi[i]} vs ${ref[i]}`);
        });

  const fp8Scales = { q: 0.02, k: 0.015, v: 0.01 };
  for (const phase of [decode(8), prefill])
    test(`FP8 KV with BF16 Q (fixed bookkeeping, non-unit scales), ${phase.kind}: within 1e-5·max(1,|o|)`, () => {
      // same stored FP8 values; the scales move from the values (reference) into bmm1/bmm2 (kernel)
      const built = buildCase(baseCase({ kvDtype: 'fp8_e4m3', scales: fp8Scales }));
      const ref = runBackend(createReferenceBackend(), built, phase);
      const fi = runBackend(createFlashinferBackend(fixedBf16Q), built, phase);
      for (let i = 0; i < ref.length; i++) assert.ok(Math.abs(fi[i] - ref[i]) <= 1e-5 * Math.max(1, Math.abs(ref[i])), `element ${i}`);
    });

  test('FP8 KV with FP8 Q: within 1e-5 of reference on the fake-quantized Q, and within the derived bound of the BF16-Q reference', () => {
    const built = buildCase(baseCase({ kvDtype: 'fp8_e4m3', scales: fp8Scales }));
    const { layer } = built;
    const fi = runBackend(createFlashinferBackend({ ...fixedBf16Q, disableQQuantization: false }), built, decode(8));
    // (1) FlashInfer's own test reference: ref_q = dequant(quant(q)) · q_scale
    const fakeQ = built.q.map((x) => quantizeQuery(x, layer.scales.q) * Math.fround(layer.scales.q));
    const refFake = runBackend(createReferenceBackend(), built, decode(8), fakeQ);
    for (let i = 0; i < fi.length; i++) assert.ok(Math.abs(fi[i] - refFake[i]) <= 1e-5 * Math.max(1, Math.abs(refFake[i])), `fake-Q element ${i}`);
    // (2) against the unquantized Q: per (row, head), δ = max_j |sm · (q' − q)·k_j| bounds the logit change,
    // so each softmax weight moves by a factor in [e^-2δ, e^2δ] and |Δo| ≤ (e^{2δ} − 1) · max|V| (+1e-5 rounding).
    const ref = runBackend(createReferenceBackend(), built, decode(8));
    const { numHeads: Hq, numKvHeads: Hkv, headDim: hd } = layer;
    const ks = Math.fround(layer.scales.k), vs = Math.fround(layer.scales.v);
    let worst = 0;
    for (const req of built.requests)
      for (let t = 0; t < req.qLen; t++)
        for (let h = 0; h < Hq; h++) {
          const g = Math.floor(h / (Hq / Hkv));
          const qo = ((req.rowStart + t) * Hq + h) * hd;
          let delta = 0, vmax = 0;
          for (let j = 0; j < req.seqLen; j++) {
            let dq = 0;
            for (let d = 0; d < hd; d++) dq += (fakeQ[qo + d] - built.q[qo + d]) * req.view.values[req.view.keyOffset(j, g) + d] * ks;
            delta = Math.max(delta, Math.abs(dq * layer.smScale));
            for (let d = 0; d < hd; d++) vmax = Math.max(vmax, Math.abs(req.view.values[req.view.valueOffset(j, g) + d] * vs));
          }
          const bound = Math.expm1(2 * delta) * vmax + 1e-5;
          for (let d = 0; d < hd; d++) {
            const err = Math.abs(fi[qo + d] - ref[qo + d]);
            worst = Math.max(worst, err / bound);
            assert.ok(err <= bound, `row ${t} head ${h}: ${err} > bound ${bound}`);
          }
        }
    assert.ok(worst > 0, 'Q quantization must change something');
  });
});

test('the paged kernel reads any page layout through KvView: an NHD copy gives bit-identical output', () => {
  const built = buildCase(baseCase({ kvDtype: 'fp8_e4m3', scales: { q: 1, k: 0.02, v: 0.03 } }));
  // each request's K/V copied into an NHD layout [blocks, 2, P, H, hd] with its own (reversed) block order
  const nhdRequests = built.requests.map((req) => nhdRequest(req, built.layer));
  const backend = createFlashinferBackend(fixedBf16Q);
  const hnd = runBackend(backend, built, decode(8));
  const nhd = runBackend(backend, { ...built, requests: nhdRequests }, decode(8));
  assert.deepEqual(nhd, hnd);
});
