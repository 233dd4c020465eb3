/**
 * KV state under traffic: prefix caching, a budget that runs out (preemption by recompute) and
 * cancelled neighbours leave every surviving request's tokens, logprobs and prompt logprobs equal
 * to the request run alone; each stateful fault model breaks exactly that, in its workload.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createReferenceBackend } from './attention/reference-backend.js';
import { Engine } from './engine.js';
import type { PagedKvCache } from './kv-cache/paged.js';
import { randomModel, tinyConfig } from './testing/random-init.js';
import { GREEDY } from './sampling.js';
import { Scheduler, type SequenceHandle } from './scheduler.js';
import type { EmittedToken, Finish, PromptLogprob, SequenceRequest } from './sequence.js';
import { specConfig, type SpecConfig } from './speculative/config.js';
import type { StateFaultName } from './state-faults.js';

const model = randomModel(tinyConfig(), { seed: 5, std: 0.08 });

interface Setup {
  spec?: SpecConfig | null;
  prefixCaching?: boolean;
  numBlocks?: number;
  faults?: StateFaultName[];
  maxNumBatchedTokens?: number;
}
function scheduler(o: Setup = {}): Scheduler {
  const faults = new Set(o.faults ?? []);
  const engine = new Engine(model, {
    precision: 'bf16',
    kvDtype: 'bf16',
    pageSize: 16,
    cacheKind: 'paged',
    backend: createReferenceBackend(),
    numBlocks: o.numBlocks,
    prefixCaching: o.prefixCaching,
    stateFaults: faults,
    numSpeculativeTokens: o.spec?.numSpeculativeTokens ?? 0,
  });
  return new Scheduler(engine, { spec: o.spec ?? null, maxNumSeqs: 8, maxModelLen: 512, maxNumBatchedTokens: o.maxNumBatchedTokens, stateFaults: faults });
}
const cacheOf = (s: Scheduler) => (s.engine as Engine).cache as PagedKvCache;

interface Run {
  tokens: EmittedToken[];
  prompt?: PromptLogprob[];
  finish?: Finish;
  handle: SequenceHandle;
}
type Req = Partial<SequenceRequest> & { promptIds: number[] };
function submit(s: Scheduler, req: Req): Run {
  const r = { tokens: [] } as unknown as Run;
  r.handle = s.submit(
    { maxTokens: 10, sampling: GREEDY, seed: 0, ignoreEos: true, logprobs: 2, ...req },
    { onTokens: (t) => r.tokens.push(...t), onFinish: (f) => (r.finish = f), onPromptLogprobs: (p) => (r.prompt = p) },
  );
  return r;
}
/** The request alone on a fresh engine with room to spare and no prefix caching. */
function alone(req: Req): Run {
  const s = scheduler();
  const r = submit(s, req);
  s.runToCompletion();
  return r;
}
const ids = (seed: number, n: number) => Array.from({ length: n }, (_, i) => 32 + ((seed * 131 + i * 17 + ((i * i) % 7)) % 200));

/** A family of prompts sharing a 40-token prefix (2 full pages + 8), split off at page-aligned and unaligned points. */
const shared = ids(1, 40);
const family = [shared.slice(0, 32).concat(ids(2, 9)), shared.concat(ids(3, 5)), shared.concat(ids(4, 12)), shared.slice(0, 21).concat(ids(5, 20)), ids(6, 30), shared.concat(ids(7, 3))];

/** Arrivals over the first steps; request 3 and 5 are cancelled mid-stream. */
function traffic(s: Scheduler, cancel: boolean): Run[] {
  const runs: Run[] = [];
  family.forEach((p, i) => {
    runs.push(submit(s, { promptIds: p, maxTokens: 8 + (i % 3) * 4, promptLogprobs: i === 4 ? 2 : null }));
    s.step();
    if (cancel && i === 4) runs[3].handle.abort();
  });
  s.step();
  if (cancel) runs[5].handle.abort();
  s.runToCompletion();
  return runs;
}

function assertAlone(runs: Run[], skip: number[]): void {
  runs.forEach((r, i) => {
    if (skip.includes(i)) return;
    const ref = alone({ promptIds: family[i], maxTokens: 8 + (i % 3) * 4, promptLogprobs: i === 4 ? 2 : null });
    assert.deepEqual(r.tokens, ref.tokens, `request ${i}: tokens and logprobs`);
    assert.deepEqual(r.prompt, ref.prompt, `request ${i}: prompt logprobs`);
    assert.deepEqual(r.finish, { reason: 'length' });
  });
}

describe('KV state under traffic ≡ each request alone', () => {
  for (const prefixCaching of [false, true])
    for (const numBlocks of [undefined, 6])
      test(`prefix caching ${prefixCaching ? 'on' : 'off'}, ${numBlocks ? `${numBlocks} blocks (preemption)` : 'room to spare'}, cancelled neighbours`, () => {
        const s = scheduler({ prefixCaching, numBlocks });
        const runs = traffic(s, true);
        assertAlone(runs, [3, 5]);
        assert.equal(runs[3].finish?.reason, 'abort');
        assert.equal(runs[5].finish?.reason, 'abort');
        const kv = cacheOf(s);
        if (prefixCaching) assert.ok(kv.stats.hits >= 32, `prefix-cache hits ${kv.stats.hits}`);
        else assert.equal(kv.stats.hits, 0);
        if (numBlocks) assert.ok(s.counters.preemptions > 0, 'the budget ran out');
        else assert.equal(s.counters.preemptions, 0);
        assert.equal(kv.numFree, kv.numBlocks, 'every block is free at the end');
      });

  test('with speculative decoding (suffix, k = 3): drafts are never cached, rejected ones roll back; prefix caching + preemption ≡ alone', () => {
    const spec = specConfig('suffix', 3);
    const s = scheduler({ prefixCaching: true, numBlocks: 6, spec });
    const runs = traffic(s, false);
    assert.ok(s.counters.preemptions > 0 && s.counters.specDrafts > 0);
    assert.ok(cacheOf(s).stats.hits > 0);
    runs.forEach((r, i) => {
      const ref = scheduler();
      const want = submit(ref, { promptIds: family[i], maxTokens: 8 + (i % 3) * 4, promptLogprobs: i === 4 ? 2 : null });
      ref.runToCompletion();
      assert.deepEqual(r.tokens.map((t) => t.id), want.tokens.map((t) => t.id), `request ${i}`);
    });
  });

  test('a failed step leaves no cached prefix behind: its blocks were registered but never written', () => {
    const s = scheduler({ prefixCaching: true });
    const p = ids(41, 40);
    const forward = s.engine.forward.bind(s.engine);
    s.engine.forward = () => {
      throw new Error('injected failure');
    };
    const failed = submit(s, { promptIds: p });
    s.step();
    assert.equal(failed.finish?.reason, 'error');
    s.engine.forward = forward;
    const again = submit(s, { promptIds: p });
    s.runToCompletion();
    assert.equal(cacheOf(s).stats.hits, 0);
    assert.deepEqual(again.tokens, alone({ promptIds: p }).tokens);
  });

  test('a request the budget cannot hold even alone ends with an error, not a hang', () => {
    const s = scheduler({ numBlocks: 2 });
    const r = submit(s, { promptIds: ids(9, 40) });
    s.runToCompletion();
    assert.equal(r.finish?.reason, 'error');
    assert.match(r.finish?.error ?? '', /KV cache is full/);
  });
});

/** The requests whose tokens or prompt logprobs differ from alone. */
function diverging(runs: Run[], reqs: Req[]): number[] {
  return runs.flatMap((r, i) => {
    if (r.finish?.reason === 'abort') return [];
    const ref = alone(reqs[i]);
    const same = JSON.stringify(r.tokens) === JSON.stringify(ref.tokens) && JSON.stringify(r.prompt) === JSON.stringify(ref.prompt);
    return same ? [] : [i];
  });
}

describe('stateful fault models corrupt only in their workload', () => {
  /** Prefix X cached, then evicted by other traffic, then X again (the budget: 6 blocks). */
  function evictionTrace(faults: StateFaultName[]) {
    const s = scheduler({ prefixCaching: true, numBlocks: 6, faults });
    const x = ids(11, 40);
    const reqs: Req[] = [{ promptIds: x, maxTokens: 4 }, { promptIds: ids(12, 70), maxTokens: 4 }, { promptIds: x.concat(ids(13, 4)), maxTokens: 8 }];
    const runs = reqs.map((r) => {
      const run = submit(s, r);
      s.runToCompletion();
      return run;
    });
    return { runs, reqs, s };
  }
  test('stale-prefix-hash: the evicted prefix is "hit" and read from a reused block; off, the same trace is exact', () => {
    const bad = evictionTrace(['stale-prefix-hash']);
    assert.deepEqual(diverging(bad.runs, bad.reqs), [2]);
    const good = evictionTrace([]);
    assert.deepEqual(diverging(good.runs, good.reqs), []);
    assert.ok(cacheOf(bad.s).stats.hits > cacheOf(good.s).stats.hits, 'the stale key made a hit the correct cache does not');
  });

  /** B shares A's prefix; A is cancelled while B decodes; C takes the freed blocks. */
  function abortTrace(faults: StateFaultName[]) {
    const s = scheduler({ prefixCaching: true, faults });
    const p = ids(21, 48);
    const reqs: Req[] = [{ promptIds: p.concat(ids(22, 3)), maxTokens: 30 }, { promptIds: p.concat(ids(23, 5)), maxTokens: 16 }, { promptIds: ids(24, 60), maxTokens: 4 }];
    const a = submit(s, reqs[0]);
    s.step();
    const b = submit(s, reqs[1]);
    s.step();
    s.step();
    a.handle.abort();
    s.step();
    const c = submit(s, reqs[2]);
    s.runToCompletion();
    return { runs: [a, b, c], reqs, s };
  }
  test('abort-frees-shared-blocks: a cancelled neighbour frees blocks its prefix-sharing neighbour still reads', () => {
    const bad = abortTrace(['abort-frees-shared-blocks']);
    assert.deepEqual(diverging(bad.runs, bad.reqs), [1]);
    const good = abortTrace([]);
    assert.deepEqual(diverging(good.runs, good.reqs), []);
  });

  test('prompt-logprobs-chunk-offset: chunked prompt logprobs are shifted by one row; the tokens are right', () => {
    const req: Req = { promptIds: ids(31, 40), maxTokens: 4, promptLogprobs: 1 };
    const chunked = (faults: StateFaultName[]) => {
      const s = scheduler({ maxNumBatchedTokens: 16, faults });
      const r = submit(s, req);
      s.runToCompletion();
      return r;
    };
    const ref = alone(req);
    const bad = chunked(['prompt-logprobs-chunk-offset']);
    assert.deepEqual(bad.tokens, ref.tokens, 'the generated text is right');
    assert.deepEqual(bad.prompt!.slice(0, 16), ref.prompt!.slice(0, 16), 'the first chunk is right');
    assert.notDeepEqual(bad.prompt!.slice(16), ref.prompt!.slice(16));
    const next = chunked([]);
    assert.deepEqual(next.prompt, ref.prompt, 'off, chunking changes nothing');
    // unchunked (one step), the fault has no chunk to shift
    const s = scheduler({ faults: ['prompt-logprobs-chunk-offset'] });
    const whole = submit(s, req);
    s.runToCompletion();
    assert.deepEqual(whole.prompt, ref.prompt);
  });
});
