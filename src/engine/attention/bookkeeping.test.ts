import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AttentionPhase } from './backend.js';
import { fixedScales, vllmAffectedScales, type ScaleContext } from './bookkeeping.js';
import { createFlashinferBackend, type FlashinferOptions } from './flashinfer.js';
import { createReferenceBackend } from './reference-backend.js';
import { buildCase, maxAbsDiff, runBackend, type AttentionCase } from './testing.js';

const ctx = (over: Partial<ScaleContext>): ScaleContext => ({
  kernel: 'trtllm-gen-decode', qDtype: 'bf16', kvQuantized: true, smScale: 0.5, q: 2, k: 3, v: 5, ...over,
});

describe('scale policies as data', () => {
  test("fixed = vLLM's get_xqa_bmm1_scale (its unit test: sm 0.5, q 2, k 3 → BF16-Q 1.5, FP8-Q 3.0)", () => {
    assert.deepEqual(fixedScales(ctx({})), { bmm1: 1.5, bmm2: 5, dequantizeKvFirst: false });
    assert.deepEqual(fixedScales(ctx({ qDtype: 'fp8' })), { bmm1: 3, bmm2: 5, dequantizeKvFirst: false });
    assert.deepEqual(fixedScales(ctx({ kernel: 'trtllm-gen-context' })), { bmm1: 0.5, bmm2: 1, dequantizeKvFirst: true });
    assert.deepEqual(fixedScales(ctx({ kvQuantized: false })), { bmm1: 0.5, bmm2: 1, dequantizeKvFirst: false });
  });
  test('vllm-affected: q·k in bmm1 whatever the Q dtype; the dequantizing prefill still passes them', () => {
    assert.deepEqual(vllmAffectedScales(ctx({})), { bmm1: 3, bmm2: 5, dequantizeKvFirst: false });
    assert.deepEqual(vllmAffectedScales(ctx({ kernel: 'native-prefill' })), { bmm1: 3, bmm2: 5, dequantizeKvFirst: false });
    assert.deepEqual(vllmAffectedScales(ctx({ kernel: 'trtllm-gen-context' })), { bmm1: 3, bmm2: 5, dequantizeKvFirst: true });
    assert.deepEqual(vllmAffectedScales(ctx({ kvQuantized: false })), { bmm1: 0.5, bmm2: 1, dequantizeKvFirst: false });
  });
});

const decode8: AttentionPhase = { kind: 'decode', qLenPerReq: 8 };
const prefill: AttentionPhase = { kind: 'prefill' };

function fp8Case(scales: AttentionCase['scales']): AttentionCase {
  return {
    seed: 21, numHeads: 4, numKvHeads: 2, headDim: 32, windowLeft: 31, smScale: 32 ** -0.5, scales,
    kvDtype: 'fp8_e4m3', pageSize: 16, requests: [{ seqLen: 120, qLen: 8 }, { seqLen: 64, qLen: 8 }], vStd: 2,
  };
}

/** Every path the bookkeeping touches: [name, options, phase]. */
const paths: [string, Partial<FlashinferOptions>, AttentionPhase][] = [
  ['trtllm-gen decode, BF16 Q', { disableQQuantization: true }, decode8],
  ['trtllm-gen decode, FP8 Q', { disableQQuantization: false }, decode8],
  ['native prefill, BF16 Q', { disableQQuantization: true }, prefill],
  ['forced trtllm-gen prefill, BF16 Q (dequantizing fallback)', { disableQQuantization: true, useTrtllmAttention: true }, prefill],
  ['trtllm-gen prefill, FP8 Q', { disableQQuantization: false }, prefill],
];

function both(scales: AttentionCase['scales'], over: Partial<FlashinferOptions>, phase: AttentionPhase) {
  const built = buildCase(fp8Case(scales));
  const base: FlashinferOptions = { bookkeeping: 'fixed', faultModel: null, disableQQuantization: true, useTrtllmAttention: null, ...over };
  return {
    built,
    fixed: runBackend(createFlashinferBackend(base), built, phase),
    affected: runBackend(createFlashinferBackend({ ...base, bookkeeping: 'vllm-affected' }), built, phase),
    reference: runBackend(createReferenceBackend(), built, phase),
  };
}

describe('vllm-affected vs fixed on FP8 KV', () => {
  for (const [name, over, phase] of paths)
    test(`${name}: bit-identical when q = k = v = 1.0`, () => {
      const { fixed, affected } = both({ q: 1, k: 1, v: 1 }, over, phase);
      assert.deepEqual(affected, fixed);
    });

  // calibrated scales as amax/448 would give them
  const calibrated = { q: 0.03, k: 0.012, v: 0.008 };
  const wrongWhere = new Set(['trtllm-gen decode, BF16 Q', 'native prefill, BF16 Q', 'forced trtllm-gen prefill, BF16 Q (dequantizing fallback)']);
  for (const [name, over, phase] of paths)
    test(`${name}: calibrated scales → ${wrongWhere.has(name) ? 'affected differs measurably, fixed stays right' : 'both right'}`, (t) => {
      const { fixed, affected, reference } = both(calibrated, over, phase);
      const fixedErr = maxAbsDiff(fixed, reference);
      const affectedErr = maxAbsDiff(affected, reference);
      t.diagnostic(`max |fixed − ref| = ${fixedErr.toExponential(2)}, max |affected − ref| = ${affectedErr.toExponential(2)}`);
      // FP8 Q carries its own quantization error (bounded in flashinfer.test.ts); BF16 Q paths are exact to 1e-5 (bf16 mock cache: 1e-2)
      const fixedTol = over.disableQQuantization === false ? 0.5 : over.useTrtllmAttention ? 2e-2 : 1e-5;
      assert.ok(fixedErr <= fixedTol, `fixed error ${fixedErr}`);
      if (wrongWhere.has(name)) assert.ok(affectedErr > 0.05, `affected error ${affectedErr} should be measurable`);
      else assert.deepEqual(affected, fixed);
    });

  test('forced-trtllm prefill fallback: with q = 1 but k, v ≠ 1 the double-applied k/v still corrupts', () => {
    const { fixed, affected, reference } = both({ q: 1, k: 0.012, v: 0.008 }, { disableQQuantization: true, useTrtllmAttention: true }, prefill);
    assert.ok(maxAbsDiff(fixed, reference) < 2e-2);
    assert.ok(maxAbsDiff(affected, reference) > 0.05);
  });

  test('BF16 KV: both policies ignore the scales entirely', () => {
    const built = buildCase({ ...fp8Case({ q: 0.03, k: 0.012, v: 0.008 }), kvDtype: 'bf16' });
    const base: FlashinferOptions = { bookkeeping: 'fixed', faultModel: null, disableQQuantization: true, useTrtllmAttention: null };
    const a = runBackend(createFlashinferBackend(base), built, decode8);
    const b = runBackend(createFlashinferBackend({ ...base, bookkeeping: 'vllm-affected' }), built, decode8);
    assert.deepEqual(a, b);
  });
});
