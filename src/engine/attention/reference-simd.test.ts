/**
 * The SIMD reference attention (reference-simd.ts) must give the JS loop's output bit for bit, on
 * random shapes: head dims even and odd, windows on and off, 1…300 keys, 1…16 rows, GQA groups of
 * 1, 2, 3 and 4, FP8 / BF16 / FP32 caches, paged, contiguous and NHD-strided views, with and without
 * the float64 widening pass.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRng } from '../../core/rng.js';
import type { KvDtype } from '../kv-cache/cache.js';
import { attentionKernels } from '../wasm/attention-kernels.js';
import { referenceAttentionJs } from './reference.js';
import { referenceAttentionSimd } from './reference-simd.js';
import { buildCase, nhdRequest, type AttentionCase, type BuiltCase } from './testing.js';

const kernels = attentionKernels();

function assertSameBits(built: BuiltCase, label: string, transformRequests = (b: BuiltCase) => b.requests): void {
  const js = new Float32Array(built.q.length), simd = new Float32Array(built.q.length);
  for (const r of transformRequests(built)) {
    referenceAttentionJs(built.q, js, r, built.layer);
    referenceAttentionSimd(kernels!, built.q, simd, r, built.layer);
  }
  assert.deepEqual(new Uint32Array(simd.buffer), new Uint32Array(js.buffer), label);
}

test('WebAssembly SIMD attention kernels are available on this Node (else the JS loop runs)', () => {
  assert.ok(kernels);
});

test('SIMD reference attention ≡ JS reference attention, bit for bit, on random shapes', () => {
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
    assertSameBits(buildCase(c), JSON.stringify({ ...c, requests: seqLens }));
  }
});

test('SIMD reference attention ≡ JS on an NHD page layout (strided rows within a page)', () => {
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
  assertSameBits(built, 'nhd', (b) => b.requests.map((r) => nhdRequest(r, b.layer)));
});

test('the kernel memory grows for long ranges and wide heads, and small calls still agree afterwards', () => {
  const base = { seed: 3, numHeads: 2, numKvHeads: 1, windowLeft: -1, scales: { q: 1, k: 0.1, v: 0.1 }, kvDtype: 'fp8_e4m3' as const, pageSize: 64 };
  assertSameBits(buildCase({ ...base, headDim: 256, smScale: 1 / 16, requests: [{ seqLen: 1500, qLen: 2 }] }), 'grown');
  assertSameBits(buildCase({ ...base, headDim: 8, smScale: 0.3, requests: [{ seqLen: 5, qLen: 5 }] }), 'small after grown');
});

test('extreme scores: a one-hot softmax and underflowing weights stay bit-identical', () => {
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
  assertSameBits(built, 'one-hot');
});
