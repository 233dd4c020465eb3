/**
 * The engine over a whole (small, random) model: paged ≡ contiguous bit for bit, batch
 * composition and step size do not change a row's result, rollback really forgets.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRng } from '../core/rng.js';
import type { AttentionBackend, AttentionCallRecord } from './attention/backend.js';
import { trtllmGenSwaSpecdec } from './attention/fault-models.js';
import { createFlashinferBackend } from './attention/flashinfer.js';
import { createReferenceBackend } from './attention/reference-backend.js';
import { Engine, splitDecodesAndPrefills, type EngineOptions } from './engine.js';
import type { KvDtype } from './kv-cache/cache.js';
import type { Precision } from './model.js';
import { randomModel, tinyConfig } from './testing/random-init.js';

const scales = [
  { q: 0.02, k: 0.01, v: 0.015 },
  { q: 0.03, k: 0.02, v: 0.01 },
  { q: 0.02, k: 0.015, v: 0.02 },
];
const model = randomModel(tinyConfig(), { seed: 1, scales, std: 0.08 });
const rng = createRng(99);
const promptA = Array.from({ length: 45 }, () => rng.int(256));
const promptB = Array.from({ length: 23 }, () => rng.int(256));

type BackendName = 'reference' | 'flashinfer-affected-faulty';
function backend(name: BackendName): AttentionBackend {
  return name === 'reference'
    ? createReferenceBackend()
    : createFlashinferBackend({ bookkeeping: 'vllm-affected', faultModel: trtllmGenSwaSpecdec, disableQQuantization: true, useTrtllmAttention: null });
}

function engine(over: Partial<EngineOptions> & { backendName?: BackendName } = {}): Engine {
  return new Engine(model, {
    precision: 'bf16',
    kvDtype: 'fp8_e4m3',
    pageSize: 16,
    cacheKind: 'paged',
    backend: backend(over.backendName ?? 'reference'),
    numSpeculativeTokens: 7,
    ...over,
  });
}

/** A workload that exercises everything a cache does: two sequences, prefill, spec-as-decode steps, rollback. */
function workload(e: Engine): Float32Array[] {
  const out: Float32Array[] = [];
  for (const r of e.forward([{ seqId: 1, tokens: promptA }, { seqId: 2, tokens: promptB }])) out.push(Float32Array.from(r.logits));
  for (let step = 0; step < 6; step++) {
    const drafts = (seq: number) => Array.from({ length: 8 }, (_, i) => (seq * 31 + step * 7 + i) % 256);
    for (const r of e.forward([{ seqId: 1, tokens: drafts(1) }, { seqId: 2, tokens: drafts(2) }])) out.push(Float32Array.from(r.logits));
    e.rollback(1, e.length(1) - (step % 3)); // reject some drafts
    e.rollback(2, e.length(2) - ((step + 1) % 4));
  }
  for (const r of e.forward([{ seqId: 2, tokens: [65] }])) out.push(Float32Array.from(r.logits));
  return out;
}

describe('paged ≡ contiguous, bit for bit', () => {
  const configs: [Precision, KvDtype, BackendName][] = [
    ['bf16', 'fp8_e4m3', 'flashinfer-affected-faulty'],
    ['bf16', 'bf16', 'reference'],
    ['fp32', 'fp32', 'reference'],
    ['bf16', 'fp8_e4m3', 'reference'],
  ];
  for (const [precision, kvDtype, backendName] of configs)
    for (const pageSize of [16, 32, 64])
      test(`${precision} weights math, ${kvDtype} KV, ${backendName}, page ${pageSize}`, () => {
        const contiguous = workload(engine({ precision, kvDtype, backendName, pageSize, cacheKind: 'contiguous' }));
        const pagedEngine = engine({ precision, kvDtype, backendName, pageSize, cacheKind: 'paged', numBlocks: 64 });
        let faultyPairs = 0;
        pagedEngine.options.backend.onCall = (r) => (faultyPairs += r.faultyPairs.length);
        const paged = workload(pagedEngine);
        // with the fault model on, the workload must actually hit it (else the comparison proves less)
        if (backendName === 'flashinfer-affected-faulty') assert.ok(faultyPairs > 0, 'fault model never fired');
        assert.equal(paged.length, contiguous.length);
        paged.forEach((p, i) => assert.deepEqual(p, contiguous[i], `step ${i}`));
      });
});

describe('a row does not depend on how it is batched', () => {
  test('prefill in one step ≡ token by token ≡ in chunks (reference backend)', () => {
    const V = model.config.vocabSize;
    const whole = engine().forward([{ seqId: 0, tokens: promptA }])[0].logits;
    const e = engine();
    for (let i = 0; i < promptA.length; i++) {
      const row = e.forward([{ seqId: 0, tokens: [promptA[i]] }])[0].logits;
      assert.deepEqual(row, whole.subarray(i * V, (i + 1) * V), `position ${i}`);
    }
    const chunks = engine();
    const rows: Float32Array[] = [];
    for (let i = 0; i < promptA.length; i += 8) rows.push(Float32Array.from(chunks.forward([{ seqId: 0, tokens: promptA.slice(i, i + 8) }])[0].logits));
    assert.deepEqual(Float32Array.from(rows.flatMap((r) => [...r])), whole);
  });

  test('two sequences in one step ≡ each alone', () => {
    const together = engine().forward([{ seqId: 1, tokens: promptA }, { seqId: 2, tokens: promptB }]);
    assert.deepEqual(together[0].logits, engine().forward([{ seqId: 1, tokens: promptA }])[0].logits);
    assert.deepEqual(together[1].logits, engine().forward([{ seqId: 2, tokens: promptB }])[0].logits);
  });

  test('rollback forgets: re-running after a rollback equals a fresh run', () => {
    const e = engine();
    e.forward([{ seqId: 0, tokens: promptA }]);
    e.forward([{ seqId: 0, tokens: [1, 2, 3, 4, 5] }]);
    e.rollback(0, promptA.length);
    const again = e.forward([{ seqId: 0, tokens: [9, 8] }])[0].logits;
    const fresh = engine();
    fresh.forward([{ seqId: 0, tokens: promptA }]);
    assert.deepEqual(again, fresh.forward([{ seqId: 0, tokens: [9, 8] }])[0].logits);
  });
});

describe('step routing', () => {
  test('split_decodes_and_prefills with require_uniform', () => {
    assert.deepEqual(splitDecodesAndPrefills([8, 8, 40, 8], 8), { decode: [0, 1, 3], qLenPerReq: 8, prefill: [2] });
    assert.deepEqual(splitDecodesAndPrefills([40, 3, 8], 8), { decode: [1], qLenPerReq: 3, prefill: [0, 2] });
    assert.deepEqual(splitDecodesAndPrefills([40], 8), { decode: [], qLenPerReq: 0, prefill: [0] });
  });

  test('the backend sees decode with q_len_per_req = 1 + k for verify steps, prefill for prompts', () => {
    const records: AttentionCallRecord[] = [];
    const e = engine({ backendName: 'flashinfer-affected-faulty' });
    e.options.backend.onCall = (r) => records.push(r);
    const [a] = e.forward([{ seqId: 0, tokens: promptA }]);
    const [b] = e.forward([{ seqId: 0, tokens: [1, 2, 3, 4, 5, 6, 7, 8] }]);
    assert.deepEqual(a.phase, { kind: 'prefill' });
    assert.deepEqual(b.phase, { kind: 'decode', qLenPerReq: 8 });
    const L = model.config.numLayers;
    assert.deepEqual(records.slice(0, L).map((r) => r.kernel), Array(L).fill('native-prefill'));
    assert.deepEqual(records.slice(L).map((r) => r.kernel), Array(L).fill('trtllm-gen-decode'));
  });

  test('bad input: token outside the vocabulary, too long a sequence, duplicate sequence', () => {
    const e = engine();
    assert.throws(() => e.forward([{ seqId: 0, tokens: [258] }]), /outside the vocabulary/);
    assert.throws(() => e.forward([{ seqId: 0, tokens: Array(513).fill(1) }]), /max_position_embeddings/);
    assert.throws(() => e.forward([{ seqId: 0, tokens: [1] }, { seqId: 0, tokens: [2] }]), /twice/);
    assert.equal(e.length(0), 0);
  });

  test('out of KV blocks: the step fails and no sequence changes', () => {
    const e = engine({ numBlocks: 4 });
    e.forward([{ seqId: 1, tokens: promptA }]); // 3 blocks
    assert.throws(() => e.forward([{ seqId: 2, tokens: [1] }, { seqId: 1, tokens: Array(20).fill(1) }]), /KV cache is full/);
    assert.equal(e.length(1), promptA.length);
    assert.equal(e.length(2), 0);
  });
});

describe('the canonical combination at the engine level (unit scales, so only the fault model can differ)', () => {
  const unitModel = randomModel(tinyConfig(), { seed: 5, std: 0.08 });
  // prompt past the window (16), then spec-as-decode steps of 1 + k rows
  const run = (preset: 'sm100-affected' | 'sm100-fixed', o: { kvDtype: KvDtype; disableQ: boolean; k: number }) => {
    const e = new Engine(unitModel, {
      precision: 'bf16', kvDtype: o.kvDtype, pageSize: 16, cacheKind: 'paged', numSpeculativeTokens: o.k,
      backend: createFlashinferBackend({
        bookkeeping: preset === 'sm100-affected' ? 'vllm-affected' : 'fixed',
        faultModel: preset === 'sm100-affected' ? trtllmGenSwaSpecdec : null,
        disableQQuantization: o.disableQ, useTrtllmAttention: null,
      }),
    });
    const rows: number[] = [];
    e.forward([{ seqId: 0, tokens: promptA }]);
    for (let step = 0; step < 16; step++) {
      const toks = Array.from({ length: o.k + 1 }, (_, i) => (step * 13 + i * 7) % 256);
      rows.push(...e.forward([{ seqId: 0, tokens: toks }])[0].logits);
    }
    return rows;
  };
  test('FP8 KV + Q quantization disabled + k = 7 → logits differ from sm100-fixed', () => {
    const o = { kvDtype: 'fp8_e4m3' as const, disableQ: true, k: 7 };
    assert.notDeepEqual(run('sm100-affected', o), run('sm100-fixed', o));
  });
  for (const [name, o] of [
    ['BF16 KV', { kvDtype: 'bf16' as const, disableQ: true, k: 7 }],
    ['Q quantization on', { kvDtype: 'fp8_e4m3' as const, disableQ: false, k: 7 }],
    ['k = 3 (q_len_per_req 4)', { kvDtype: 'fp8_e4m3' as const, disableQ: true, k: 3 }],
  ] as const)
    test(`remove one of the three (${name}) → identical to sm100-fixed`, () => {
      assert.deepEqual(run('sm100-affected', o), run('sm100-fixed', o));
    });
});
