import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createReferenceBackend } from './attention/reference.js';
import { Engine } from './engine.js';
import { generate } from './generate.js';
import { randomModel, tinyConfig } from './random-init.js';
import { GREEDY } from './sampling.js';
import { Scheduler } from './scheduler.js';
import type { EmittedToken, Finish, PromptLogprob, SequenceRequest } from './sequence.js';
import { specConfig, type SpecConfig } from './spec/config.js';

const model = randomModel(tinyConfig(), { seed: 3, std: 0.08 });
const engine = (k = 0, numBlocks?: number) =>
  new Engine(model, { precision: 'bf16', kvDtype: 'bf16', pageSize: 16, cacheKind: 'paged', backend: createReferenceBackend(), numSpeculativeTokens: k, numBlocks });
const enc = (s: string) => [256, ...new TextEncoder().encode(s)];

interface Collected {
  tokens: EmittedToken[];
  finish?: Finish;
  prompt?: PromptLogprob[];
}
function submit(s: Scheduler, req: Partial<SequenceRequest> & { promptIds: number[] }): Collected {
  const c: Collected = { tokens: [] };
  s.submit({ maxTokens: 12, sampling: GREEDY, seed: 0, ignoreEos: true, ...req }, { onTokens: (t) => c.tokens.push(...t), onFinish: (f) => (c.finish = f), onPromptLogprobs: (p) => (c.prompt = p) });
  return c;
}
const plain = (ids: number[], n: number) => generate(engine(), ids, { maxTokens: n, sampling: GREEDY, seed: 0, logprobs: 0, stopAtEos: false }).tokens.map((t) => t.id);

describe('continuous batching', () => {
  for (const spec of [null, specConfig('suffix', 7)] as (SpecConfig | null)[])
    test(`sequences that join and leave at different steps ≡ each alone (${spec ? 'suffix k=7' : 'no speculation'})`, () => {
      const prompts = [enc('one two three one two three one'), enc('abcabcabcabc'), enc('the quick brown fox jumps over the lazy dog')];
      const s = new Scheduler(engine(spec?.numSpeculativeTokens ?? 0), { spec, maxNumSeqs: 2, maxModelLen: 512 });
      const a = submit(s, { promptIds: prompts[0], maxTokens: 20 });
      s.step();
      const b = submit(s, { promptIds: prompts[1], maxTokens: 5 });
      const c = submit(s, { promptIds: prompts[2], maxTokens: 9 }); // waits: maxNumSeqs 2
      s.step();
      assert.equal(s.numWaiting, 1);
      s.runToCompletion();
      for (const [got, p, n] of [[a, prompts[0], 20], [b, prompts[1], 5], [c, prompts[2], 9]] as const) {
        assert.deepEqual(got.tokens.map((t) => t.id), plain(p, n));
        assert.deepEqual(got.finish, { reason: 'length' });
      }
      assert.equal(s.engine.cache.length(1), 0, 'finished sequences are released');
    });

  test('abort: the sequence stops at the next step with reason "abort" and its cache is freed', () => {
    const s = new Scheduler(engine(), { spec: null, maxNumSeqs: 4, maxModelLen: 512 });
    const c: Collected = { tokens: [] };
    const h = s.submit({ promptIds: enc('hello'), maxTokens: 100, sampling: GREEDY, seed: 0 }, { onTokens: (t) => c.tokens.push(...t), onFinish: (f) => (c.finish = f) });
    s.step();
    s.step();
    h.abort();
    s.step();
    assert.deepEqual(c.finish, { reason: 'abort' });
    assert.equal(c.tokens.length, 2);
    assert.equal(s.hasWork, false);
    assert.equal(s.counters.finished.abort, 1);
  });

  test('stop rules: stop_token_ids (reason stop + the id), min_tokens masks them, max_model_len ends with length', () => {
    const ids = plain(enc('stop rules'), 12);
    const s = new Scheduler(engine(), { spec: null, maxNumSeqs: 4, maxModelLen: 512 });
    const stopAt = submit(s, { promptIds: enc('stop rules'), stopTokenIds: [ids[3]] });
    const masked = submit(s, { promptIds: enc('stop rules'), stopTokenIds: [ids[0]], minTokens: 1 });
    s.runToCompletion();
    const first = ids.indexOf(ids[3]);
    assert.deepEqual(stopAt.finish, { reason: 'stop', stopTokenId: ids[3] });
    assert.deepEqual(stopAt.tokens.map((t) => t.id), ids.slice(0, first + 1));
    assert.notEqual(masked.tokens[0].id, ids[0], 'min_tokens = 1 masks the stop id at the first position');
    const s2 = new Scheduler(engine(7), { spec: specConfig('ngram', 7, { promptLookupMin: 1 }), maxNumSeqs: 1, maxModelLen: 20 });
    const cut = submit(s2, { promptIds: enc('aaaaaaaaaa'), maxTokens: 100 });
    s2.runToCompletion();
    assert.deepEqual(cut.finish, { reason: 'length' });
    assert.equal(cut.tokens.length, 20 - 11);
  });

  test('prompt logprobs: null first, then the prompt token with its rank and the top alternatives', () => {
    const s = new Scheduler(engine(), { spec: null, maxNumSeqs: 1, maxModelLen: 512 });
    const c = submit(s, { promptIds: enc('abc'), maxTokens: 1, promptLogprobs: 2 });
    s.runToCompletion();
    assert.equal(c.prompt?.length, 4);
    assert.equal(c.prompt?.[0], null);
    const e = c.prompt![2]!;
    assert.equal(e.id, 98);
    assert.equal(e.top.length, 2);
    const inTop = e.top.findIndex((t) => t.id === e.id);
    if (inTop >= 0) assert.equal(e.rank, inTop + 1);
    else assert.ok(e.rank > 2);
    assert.ok(e.logprob <= 0 && e.top[0].logprob >= e.logprob);
  });

  test("an engine failure ends the step's sequences with reason 'error', never an exception", () => {
    const s = new Scheduler(engine(0, 2), { spec: null, maxNumSeqs: 4, maxModelLen: 512 });
    const big = submit(s, { promptIds: Array(40).fill(65) }); // 3 blocks > budget of 2
    s.runToCompletion();
    assert.equal(big.finish?.reason, 'error');
    assert.match(big.finish?.error ?? '', /KV cache is full/);
    assert.equal(s.hasWork, false);
  });
});
