/**
 * Every attention kernel of the engine against the spec (reference.ts `referenceAttentionSpec`: one
 * head, one row, float64), on random shapes — head dims even and odd, windows on and off, 1…300 keys,
 * 1…16 rows, GQA groups of 1–4, FP8 / BF16 / FP32 caches, pages of 16/32/64, paged, contiguous and
 * NHD-strided views:
 *   - the reference backend's kernels — the JS loop taking two heads at a time, the WebAssembly
 *     SIMD one and the native addon's (paged caches, where the addon is built) — give the spec's
 *     bits exactly;
 *   - the FlashInfer emulation's online softmax (JS and SIMD; float32 running state, exp2) with a
 *     BF16 query and the fixed bookkeeping (bmm1 = sm · k_scale, bmm2 = v_scale: the same dequantized
 *     K/V) is within 1e-5 · max(1, |o|) of it: float32 rounding of the running max, denominator and
 *     accumulators over ≤ 300 keys (~1e-6 observed), not bit equality. Its FP8-query paths are checked
 *     against the spec on the fake-quantized query in flashinfer.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRng } from '../../core/rng.js';
import type { KvDtype } from '../kv-cache/cache.js';
import { attentionKernels } from '../wasm/attention-kernels.js';
import type { AttentionRequest } from './backend.js';
import { createFlashinferBackend } from './flashinfer.js';
import { referenceAttentionSpec } from './reference.js';
import { nativeKernels } from '../native.js';
import { referenceAttentionNative, referenceAttentionPairs, referenceAttentionSimd } from './reference-backend.js';
import { buildCase, nhdRequest, runBackend, type AttentionCase, type BuiltCase } from './testing.js';

const kernels = attentionKernels();
const native = nativeKernels();

type Kernel = (b: BuiltCase, requests: AttentionRequest[]) => Float32Array;
const perRequest =
  (f: (q: Float32Array, out: Float32Array, req: AttentionRequest, layer: BuiltCase['layer']) => void): Kernel =>
  (b, requests) => {
    const out = new Float32Array(b.q.length);
    for (const r of requests) f(b.q, out, r, b.layer);
    return out;
  };
const spec = perRequest(referenceAttentionSpec);
const exact: [string, Kernel][] = [
  ['reference JS (two heads at a time)', perRequest(referenceAttentionPairs)],
  ['reference WebAssembly SIMD', perRequest((q, out, r, l) => referenceAttentionSimd(kernels!, q, out, r, l))],
  // the native path reads paged caches only (an NHD dump or a contiguous cache has no block table)
  ...(native ? [['reference native', perRequest((q, out, r, l) => (r.view.blocks ? referenceAttentionNative(native, q, out, r, l) : referenceAttentionPairs(q, out, r, l)))] as [string, Kernel]] : []),
];
const onlineSoftmax = (k: 'js' | 'wasm-simd'): Kernel => (b, requests) =>
  runBackend(createFlashinferBackend({ bookkeeping: 'fixed', faultModel: null, disableQQuantization: true, useTrtllmAttention: null, kernels: k }), { ...b, requests }, { kind: 'prefill' });
const close: [string, Kernel][] = [
  ['online softmax JS', onlineSoftmax('js')],
  ['online softmax WebAssembly SIMD', onlineSoftmax('wasm-simd')],
];

function check(built: BuiltCase, label: string, requests = built.requests): void {
  const want = spec(built, requests);
  for (const [name, k] of exact) assert.deepEqual(new Uint32Array(k(built, requests).buffer), new Uint32Array(want.buffer), `${name}: ${label}`);
  if (built.layer.kvDtype === 'fp32') return; // the FlashInfer emulation stores BF16 or FP8
  for (const [name, k] of close) {
    const got = k(built, requests);
    for (let i = 0; i < got.length; i++) assert.ok(Math.abs(got[i] - want[i]) <= 1e-5 * Math.max(1, Math.abs(want[i])), `${name}: ${label}, element ${i}: ${got[i]} vs ${want[i]}`);
  }
}

test('WebAssembly SIMD attention kernels are available on this Node (else the JS loop runs)', () => {
  assert.ok(kernels);
});

test('every attention kernel meets the spec on random shapes', () => {
  const rng = createRng(14);
  const pick = <T,>(xs: readonly T[]): T => xs[rng.int(xs.length)];
  for (let i = 0; i < 48; i++) {
    const numKvHeads = pick([1, 2, 3]);
    const group = pick([1, 2, 3, 4]);
    const headDim = pick([2, 7, 8, 16, 24, 33, 64]);
    const kvDtype = pick<KvDtype>(['bf16', 'fp8_e4m3', 'fp32']);
    const qLen = pick([1, 1, 2, 4, 8, 16]);
    const seqLens = Array.from({ length: pick([1, 2, 3]) }, () => qLen + Math.floor(rng.next() * (300 - qLen)));
    const c: AttentionCase = {
      seed: 100 + i,
      numHeads: numKvHeads * group,
      numKvHeads,
      headDim,
      windowLeft: pick([-1, -1, 0, 7, 40, 127]),
      smScale: headDim ** -0.5,
      scales: { q: 1, k: 0.05 + rng.next() * 0.1, v: 0.02 + rng.next() * 0.1 },
      kvDtype,
      pageSize: pick([16, 32, 64]),
      qkStd: pick([0.5, 1, 3]),
      vStd: pick([0.1, 1, 4]),
      cacheKind: pick(['paged', 'contiguous'] as const),
      requests: seqLens.map((seqLen) => ({ seqLen, qLen })),
    };
    check(buildCase(c), JSON.stringify({ ...c, requests: seqLens }));
  }
});

test('every attention kernel meets the spec on an NHD page layout (strided rows within a page)', () => {
  const built = buildCase({
    seed: 7,
    numHeads: 4,
    numKvHeads: 2,
    headDim: 32,
    windowLeft: 40,
    smScale: 32 ** -0.5,
    scales: { q: 1, k: 0.07, v: 0.03 },
    kvDtype: 'fp8_e4m3',
    pageSize: 16,
    requests: [{ seqLen: 150, qLen: 8 }, { seqLen: 41, qLen: 1 }],
  });
  check(built, 'nhd', built.requests.map((r) => nhdRequest(r, built.layer)));
});

test('the SIMD kernel memory grows for long ranges and wide heads, and small calls still meet the spec afterwards', () => {
  const base = { seed: 3, numHeads: 2, numKvHeads: 1, windowLeft: -1, scales: { q: 1, k: 0.1, v: 0.1 }, kvDtype: 'fp8_e4m3' as const, pageSize: 64 };
  check(buildCase({ ...base, headDim: 256, smScale: 1 / 16, requests: [{ seqLen: 1500, qLen: 2 }] }), 'grown');
  check(buildCase({ ...base, headDim: 8, smScale: 0.3, requests: [{ seqLen: 5, qLen: 5 }] }), 'small after grown');
});

test('extreme scores: a one-hot softmax and underflowing weights meet the spec', () => {
  const built = buildCase({
    seed: 11,
    numHeads: 4,
    numKvHeads: 2,
    headDim: 16,
    windowLeft: -1,
    smScale: 1,
    scales: { q: 1, k: 1, v: 1 },
    kvDtype: 'bf16',
    pageSize: 16,
    qkStd: 12, // scores of ±500: exp underflows to 0 for most keys
    requests: [{ seqLen: 90, qLen: 4 }],
  });
  check(built, 'one-hot');
});
