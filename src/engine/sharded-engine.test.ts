/**
 * ShardedEngine: a worker thread runs about half the sequences of every step. Rows never
 * interact, so everything must be bit-identical to one thread: tokens, logprobs, logits, phases
 * (decided over the whole step, which the fault model makes visible), rollbacks of rejected drafts,
 * and the "out of KV blocks leaves every sequence as it was" rule.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBackend, presetSettings, type AttentionSettings } from './emulate.js';
import { Engine } from './engine.js';
import { ShardedEngine } from './sharded-engine.js';
import type { StepEngine } from './step-engine.js';
import { randomModel, tinyConfig } from './testing/random-init.js';
import { GREEDY } from './sampling.js';
import { Scheduler } from './scheduler.js';
import type { EmittedToken } from './sequence.js';
import { specConfig, type SpecConfig } from './speculative/config.js';

const scales = [
  { q: 0.02, k: 0.01, v: 0.015 },
  { q: 0.03, k: 0.02, v: 0.01 },
  { q: 0.02, k: 0.015, v: 0.02 },
];
const model = randomModel(tinyConfig(), { seed: 4, scales, std: 0.08 });
// BF16 query on an FP8 cache with trtllm-gen forced: the prefill fallback applies the KV scales twice
// (vllm-affected bookkeeping), so a request's numbers depend on which slice of the step it lands in
const affected: AttentionSettings = { ...presetSettings('sm100-affected'), disableQQuantization: true, useTrtllmAttention: true };
const engines: StepEngine[] = [];

function single(o: { k?: number; attention?: AttentionSettings; numBlocks?: number } = {}): Engine {
  const attention = o.attention ?? presetSettings('reference');
  const e = new Engine(model, {
    precision: 'bf16',
    kvDtype: 'fp8_e4m3',
    pageSize: 16,
    cacheKind: 'paged',
    backend: createBackend(attention),
    numSpeculativeTokens: o.k ?? 0,
    numBlocks: o.numBlocks,
  });
  engines.push(e);
  return e;
}

function sharded(o: { k?: number; attention?: AttentionSettings; numBlocks?: number } = {}): ShardedEngine {
  const e = new ShardedEngine(single(o), o.attention ?? presetSettings('reference'));
  engines.push(e);
  return e;
}
after(() => Promise.all(engines.map((e) => e.close())));

const enc = (s: string) => [256, ...new TextEncoder().encode(s)];
const prompts = ['one two three one two three', 'abcabcabcabcabc', 'the quick brown fox', 'zzzz', 'lorem ipsum dolor sit amet, consectetur', 'a', 'hello hello hello'];

/** Every prompt through a scheduler; the tokens, and the most sequences the worker held at once. */
function serve(e: StepEngine, spec: SpecConfig | null): { tokens: EmittedToken[][]; inWorker: number } {
  const s = new Scheduler(e, { spec, maxNumSeqs: 5, maxModelLen: 256 });
  const tokens: EmittedToken[][] = prompts.map(() => []);
  prompts.forEach((p, i) =>
    s.submit({ promptIds: enc(p), maxTokens: 6 + 3 * i, sampling: GREEDY, seed: 0, ignoreEos: true, logprobs: 3 }, { onTokens: (t) => tokens[i].push(...t), onFinish: () => {} }),
  );
  let inWorker = 0;
  while (s.step()) inWorker = Math.max(inWorker, e instanceof ShardedEngine ? e.counts().worker : 0);
  return { tokens, inWorker };
}

describe('two threads ≡ one thread, bit for bit', () => {
  test('the worker starts and takes sequences', async () => {
    const here = single();
    const e = new ShardedEngine(here, presetSettings('reference'));
    engines.push(e);
    assert.equal(await e.start(), true);
    e.forward([
      { seqId: 1, tokens: enc('abc') },
      { seqId: 2, tokens: enc('defg') },
      { seqId: 3, tokens: enc('h') },
    ]);
    assert.deepEqual(e.counts(), { here: 2, worker: 1 });
    assert.equal(e.length(2), 5, 'the worker sequence has its length mirrored here');
    assert.equal(here.cache.length(2), 0, 'and its KV lives in the worker');
    e.release(2);
    assert.deepEqual(e.counts(), { here: 2, worker: 0 });
  });

  for (const spec of [null, specConfig('suffix', 7)])
    test(`continuous batching, joins and leaves${spec ? ', suffix drafts k = 7 (rollbacks)' : ''}: tokens and logprobs`, async () => {
      const k = spec?.numSpeculativeTokens ?? 0;
      const two = sharded({ k });
      assert.equal(await two.start(), true);
      const got = serve(two, spec);
      assert.deepEqual(got.tokens, serve(single({ k }), spec).tokens);
      // how many go to the worker follows measured step times (timing-dependent): both threads must be used
      assert.ok(got.inWorker >= 1 && got.inWorker <= 4, `five running sequences, ${got.inWorker} in the worker`);
      assert.deepEqual(two.counts(), { here: 0, worker: 0 }, 'every sequence released on both threads');
    });

  test('phases are decided over the whole step (fault model on spec-as-decode), logits and hidden states', async () => {
    const two = sharded({ k: 7, attention: affected });
    const one = single({ k: 7, attention: affected });
    assert.equal(await two.start(), true);
    const long = Array.from({ length: 60 }, (_, i) => (i * 37) % 256);
    const steps = [
      [{ seqId: 1, tokens: long }, { seqId: 2, tokens: long.slice(0, 47) }, { seqId: 3, tokens: long.slice(0, 31) }],
      // decode slice: q_len 8 (requests 1 and 3); request 2 with 3 rows is prefill because of request 1
      [{ seqId: 1, tokens: long.slice(0, 8) }, { seqId: 2, tokens: long.slice(0, 3) }, { seqId: 3, tokens: long.slice(8, 16) }],
      [{ seqId: 2, tokens: long.slice(0, 8) }, { seqId: 3, tokens: long.slice(1, 9) }, { seqId: 1, tokens: long.slice(2, 10) }],
    ];
    // the test can see a wrong phase: request 2's three rows alone would run as decode, with other numbers
    const alone = single({ k: 7, attention: affected });
    alone.forward(steps[0]);
    const solo = alone.forward([steps[1][1]])[0];
    assert.deepEqual(solo.phase, { kind: 'decode', qLenPerReq: 3 });
    for (const step of steps) {
      const a = two.forward(step), b = one.forward(step);
      if (step === steps[1]) assert.notDeepEqual(b[1].logits, solo.logits, 'prefill and decode differ here');
      assert.deepEqual(a.map((r) => r.phase), b.map((r) => r.phase));
      a.forEach((r, i) => {
        assert.deepEqual(r.logits, b[i].logits, `seq ${r.seqId} logits`);
        assert.deepEqual(r.hidden, b[i].hidden, `seq ${r.seqId} hidden`);
      });
      for (const r of step) {
        two.rollback(r.seqId, two.length(r.seqId) - 2);
        one.rollback(r.seqId, one.length(r.seqId) - 2);
      }
    }
    assert.equal(two.counts().worker, 1);
  });

  test('out of KV blocks: the step throws and leaves every sequence (on both threads) as it was', async () => {
    const two = sharded({ numBlocks: 6 });
    const one = single({ numBlocks: 12 });
    assert.equal(await two.start(), true);
    const first = [{ seqId: 1, tokens: enc('x'.repeat(30)) }, { seqId: 2, tokens: enc('y'.repeat(30)) }];
    two.forward(first);
    one.forward(first);
    assert.deepEqual(two.counts(), { here: 1, worker: 1 });
    for (const tooMuch of [
      [{ seqId: 1, tokens: enc('z'.repeat(99)) }, { seqId: 2, tokens: [65] }], // this thread runs out
      [{ seqId: 1, tokens: [65] }, { seqId: 2, tokens: enc('z'.repeat(99)) }], // the worker runs out
    ]) {
      assert.throws(() => two.forward(tooMuch), /KV cache is full/);
      assert.deepEqual([two.length(1), two.length(2)], [31, 31]);
    }
    const next = [{ seqId: 1, tokens: [66, 67] }, { seqId: 2, tokens: [68] }];
    const a = two.forward(next), b = one.forward(next);
    a.forEach((r, i) => assert.deepEqual(r.logits, b[i].logits));
  });

  test('after close() new sequences run on this thread; the worker’s own sequences fail loudly', async () => {
    const e = sharded();
    assert.equal(await e.start(), true);
    e.forward([{ seqId: 1, tokens: [1, 2] }, { seqId: 2, tokens: [3] }]);
    await e.close();
    assert.throws(() => e.forward([{ seqId: 2, tokens: [4] }]), /worker thread stopped/);
    e.release(2);
    const r = e.forward([{ seqId: 1, tokens: [5] }, { seqId: 3, tokens: [6, 7] }]);
    assert.equal(r.length, 2);
    assert.deepEqual(e.counts(), { here: 2, worker: 0 });
  });

  test('no worker with batch-variant numerics (its reduction order follows the whole step)', () => {
    const bv = new Engine(model, { precision: 'bf16', kvDtype: 'bf16', pageSize: 16, cacheKind: 'paged', backend: createBackend(presetSettings('reference')), batchVariantNumerics: true });
    assert.equal(ShardedEngine.supports(bv, presetSettings('reference')), false);
    assert.throws(() => new ShardedEngine(bv, presetSettings('reference')), /cannot be sharded/);
  });
});

test('a process whose sharded engine is never closed still exits by itself (the idle worker holds nothing)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-threads-'));
  try {
    const script = join(dir, 'leave-open.mts'); // .mts: an ES module outside the package
    const url = (f: string) => JSON.stringify(new URL(f, import.meta.url).href);
    writeFileSync(
      script,
      `import { Engine } from ${url('./engine.ts')};
       import { ShardedEngine } from ${url('./sharded-engine.ts')};
       import { createBackend, presetSettings } from ${url('./emulate.ts')};
       import { randomModel, tinyConfig } from ${url('./testing/random-init.ts')};
       const attention = presetSettings('reference');
       const e = new ShardedEngine(new Engine(randomModel(tinyConfig(), { seed: 1 }), { precision: 'bf16', kvDtype: 'bf16', pageSize: 16, cacheKind: 'paged', backend: createBackend(attention) }), attention);
       if (!(await e.start())) throw new Error('no worker');
       e.forward([{ seqId: 1, tokens: [1, 2] }, { seqId: 2, tokens: [3] }]);
       console.log(JSON.stringify(e.counts()));`,
    );
    const r = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 0, `exit status ${r.status} (signal ${r.signal}): ${r.stderr}`);
    assert.equal(r.stdout.trim(), JSON.stringify({ here: 1, worker: 1 }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
