/**
 * The FlashInfer emulation on the SIMD kernels (online-softmax-simd.ts) must give what the JS
 * online-softmax loop gives, bit for bit: random shapes (head dims even and odd, windows, 1…300 keys,
 * 1…16 rows, GQA groups 1–4, pages of 16/32/64, FP8 and BF16 caches, paged and contiguous, FP8 or BF16
 * queries), the fault model's moved key ranges, the dequantize-first prefill (JS fallback) and an NHD
 * page layout.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRng } from '../../core/rng.js';
import type { AttentionPhase } from './backend.js';
import { trtllmGenSwaSpecdec } from './fault-models.js';
import { createFlashinferBackend, type FlashinferOptions } from './flashinfer.js';
import { buildCase, nhdRequest, runBackend, type AttentionCase, type BuiltCase } from './testing.js';

function assertSameBits(options: Omit<FlashinferOptions, 'kernels'>, built: BuiltCase, phase: AttentionPhase, label: string): void {
  const js = createFlashinferBackend({ ...options, kernels: 'js' });
  const simd = createFlashinferBackend({ ...options, kernels: 'wasm-simd' });
  const calls: unknown[] = [];
  js.onCall = (r) => calls.push(r);
  simd.onCall = (r) => calls.push(r);
  const a = runBackend(js, built, phase), b = runBackend(simd, built, phase);
  assert.deepEqual(new Uint32Array(b.buffer), new Uint32Array(a.buffer), label);
  assert.deepEqual(calls[1], calls[0], `${label}: call records`);
}

test('SIMD online softmax ≡ JS online softmax, bit for bit, on random shapes and routes', () => {
  const rng = createRng(41);
  const pick = <T,>(xs: readonly T[]): T => xs[rng.int(xs.length)];
  for (let i = 0; i < 40; i++) {
    const numKvHeads = pick([1, 2, 3]);
    const headDim = pick([2, 5, 8, 16, 32, 64]);
    const qLen = pick([1, 2, 4, 8, 16]);
    const kvDtype = pick(['bf16', 'fp8_e4m3'] as const);
    const c: AttentionCase = {
      seed: 500 + i,
      numHeads: numKvHeads * pick([1, 2, 3, 4]),
      numKvHeads,
      headDim,
      windowLeft: pick([-1, 15, 31, 100]),
      smScale: headDim ** -0.5,
      scales: { q: 0.5 + rng.next(), k: 0.05 + rng.next() * 0.1, v: 0.02 + rng.next() * 0.1 },
      kvDtype,
      pageSize: pick([16, 32, 64]),
      qkStd: pick([0.5, 1, 3]),
      cacheKind: pick(['paged', 'contiguous'] as const),
      requests: Array.from({ length: pick([1, 2, 3]) }, () => ({ seqLen: qLen + rng.int(300 - qLen), qLen })),
    };
    const options: Omit<FlashinferOptions, 'kernels'> = {
      bookkeeping: pick(['fixed', 'vllm-affected'] as const),
      faultModel: null,
      disableQQuantization: pick([true, false]),
      useTrtllmAttention: pick([null, true, false]),
    };
    const phase: AttentionPhase = pick([{ kind: 'prefill' }, { kind: 'decode', qLenPerReq: qLen }]);
    assertSameBits(options, buildCase(c), phase, JSON.stringify({ c: { ...c, requests: c.requests.map((r) => r.seqLen) }, options, phase }));
  }
});

test('SIMD ≡ JS with the fault model moving key ranges (spec-as-decode, BF16 Q, FP8 KV, past the window)', () => {
  const options = { bookkeeping: 'vllm-affected', faultModel: trtllmGenSwaSpecdec, disableQQuantization: true, useTrtllmAttention: null } as const;
  let faulty = 0;
  for (const [numHeads, numKvHeads, qLen] of [[4, 2, 8], [8, 2, 6], [3, 3, 8]] as const) {
    // seq lens around window + page multiples, so that rows' windows start on page boundaries
    const requests = Array.from({ length: 16 }, (_, i) => ({ seqLen: 31 + 16 + i, qLen }));
    const built = buildCase({ seed: numHeads, numHeads, numKvHeads, headDim: 32, windowLeft: 31, smScale: 32 ** -0.5, scales: { q: 1, k: 0.05, v: 0.04 }, kvDtype: 'fp8_e4m3', pageSize: 16, requests });
    const backend = createFlashinferBackend(options);
    backend.onCall = (r) => (faulty += r.faultyPairs.length);
    runBackend(backend, built, { kind: 'decode', qLenPerReq: qLen });
    assertSameBits(options, built, { kind: 'decode', qLenPerReq: qLen }, `Hq ${numHeads} Hkv ${numKvHeads}`);
  }
  assert.ok(faulty > 0, 'the fault model must have moved some ranges');
});

test('SIMD ≡ JS on an NHD page layout', () => {
  const built = buildCase({ seed: 9, numHeads: 4, numKvHeads: 2, headDim: 32, windowLeft: 31, smScale: 32 ** -0.5, scales: { q: 1, k: 0.02, v: 0.03 }, kvDtype: 'fp8_e4m3', pageSize: 16, requests: [{ seqLen: 150, qLen: 8 }, { seqLen: 41, qLen: 8 }] });
  const nhd = { ...built, requests: built.requests.map((r) => nhdRequest(r, built.layer)) };
  assertSameBits({ bookkeeping: 'fixed', faultModel: null, disableQQuantization: true, useTrtllmAttention: null }, nhd, { kind: 'decode', qLenPerReq: 8 }, 'nhd');
});
