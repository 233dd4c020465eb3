import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createReferenceBackend } from './attention/reference-backend.js';
import { Engine } from './engine.js';
import { generate } from './generate.js';
import { randomModel, tinyConfig } from './testing/random-init.js';
import { GREEDY } from './sampling.js';
import { Scheduler } from './scheduler.js';
import type { EmittedToken, Finish, PromptLogprob, SequenceRequest } from './sequence.js';
import { specConfig, type SpecConfig } from './speculative/config.js';

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
      assert.equal(s.engine.length(1), 0, 'finished sequences are released');
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

describe('token budget and chunked prefill', () => {
  /** An engine whose steps are recorded: the sequences of each step and its row count. */
  function recorded(k = 0) {
    const e = engine(k);
    const steps: { seqIds: number[]; rows: number }[] = [];
    const forward = e.forward.bind(e);
    e.forward = (batch) => {
      steps.push({ seqIds: batch.map((r) => r.seqId), rows: batch.reduce((n, r) => n + r.tokens.length, 0) });
      return forward(batch);
    };
    return { e, steps };
  }
  const long = enc('a long prompt that takes several chunks of the step budget to prefill');

  for (const spec of [null, specConfig('suffix', 7)] as (SpecConfig | null)[])
    test(`a prompt fed in chunks ≡ whole (tokens, logprobs, prompt_logprobs); no step over budget; a decoding stream gets a token every step (${spec ? 'suffix k=7, drafts cut to fit' : 'plain'})`, () => {
      const k = spec?.numSpeculativeTokens ?? 0;
      const { e, steps } = recorded(k);
      const s = new Scheduler(e, { spec, maxNumSeqs: 4, maxModelLen: 512, maxNumBatchedTokens: 6 });
      const first = submit(s, { promptIds: enc('abcabc'), maxTokens: 30, logprobs: 2 });
      s.step(); // prefilled whole (7 tokens > 6: two chunks) …
      s.step();
      assert.equal(first.tokens.length, 1, 'the first token comes after the last chunk');
      const second = submit(s, { promptIds: long, maxTokens: 8, logprobs: 2, promptLogprobs: 3 });
      s.runToCompletion();
      assert.ok(steps.every((x) => x.rows <= 6), `rows per step: ${steps.map((x) => x.rows)}`);
      // while the long prompt prefills (several steps), the first sequence is in every step
      const secondSteps = steps.filter((x) => x.seqIds.includes(2));
      assert.ok(secondSteps.length >= Math.ceil(long.length / 6), `${secondSteps.length} steps`);
      const firstEnd = steps.findLastIndex((x) => x.seqIds.includes(1));
      assert.ok(steps.slice(2, firstEnd + 1).every((x) => x.seqIds.includes(1)));

      const whole = new Scheduler(engine(k), { spec, maxNumSeqs: 4, maxModelLen: 512 });
      const a = submit(whole, { promptIds: enc('abcabc'), maxTokens: 30, logprobs: 2 });
      const b = submit(whole, { promptIds: long, maxTokens: 8, logprobs: 2, promptLogprobs: 3 });
      whole.runToCompletion();
      assert.deepEqual(first.tokens, a.tokens);
      assert.deepEqual(second.tokens, b.tokens);
      assert.deepEqual(second.prompt, b.prompt);
      assert.equal(second.prompt?.length, long.length);
      assert.equal(s.counters.promptTokens, whole.counters.promptTokens);
    });

  test('without chunked prefill a prompt waits until it fits the step whole; a budget below max_model_len is refused', () => {
    const { e, steps } = recorded();
    const s = new Scheduler(e, { spec: null, maxNumSeqs: 4, maxModelLen: 80, maxNumBatchedTokens: 80, chunkedPrefill: false });
    const prompts = [long, [...long].reverse(), enc('short')];
    const got = prompts.map((p) => submit(s, { promptIds: p, maxTokens: 4 }));
    s.runToCompletion();
    assert.ok(steps.every((x) => x.rows <= 80));
    // each prompt went in one step: the step a sequence first appears in holds its whole prompt
    for (const [i, p] of prompts.entries()) {
      const firstStep = steps.find((x) => x.seqIds.includes(i + 1))!;
      assert.ok(firstStep.rows >= p.length);
    }
    assert.ok(!steps[0].seqIds.includes(2), 'the second long prompt waited: both do not fit 80 rows');
    got.forEach((g, i) => assert.deepEqual(g.tokens.map((t) => t.id), plain(prompts[i], 4)));
    assert.throws(() => new Scheduler(engine(), { spec: null, maxNumSeqs: 4, maxModelLen: 512, maxNumBatchedTokens: 256, chunkedPrefill: false }), /at least maxModelLen/);
    assert.throws(() => new Scheduler(engine(), { spec: null, maxNumSeqs: 4, maxModelLen: 512, maxNumBatchedTokens: 0 }), /≥ 1/);
  });
});
