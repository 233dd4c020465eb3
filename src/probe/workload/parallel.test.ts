/**
 * Parallel sampling in the workload trace: one request with n choices, each choice judged against
 * the same request alone with n = 1 and seed + i (the seed vLLM gives choice i), recorded as
 * ID.cI, saved and replayed with the trace. Against the engine's in-process server on a random
 * model (prefix caching on): every choice equals the request alone.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { listen, type Listening } from '../../server/listen.js';
import { testServer } from '../../server/testing.js';
import { ProbeClient, RetryBudget } from '../client.js';
import { ServerApi } from '../server-api.js';
import { exchange } from './exchange.js';
import { runWorkload } from './run.js';
import { parseTrace } from './trace-file.js';
import { buildTrace, PARALLEL_CHOICES, type TraceRequest } from './trace.js';

const corpus = readFileSync(new URL('../../../test/fixtures/probe/prose-sample.txt', import.meta.url), 'utf8');
let server: Listening;
before(async () => {
  // a small cache: the trace's burst past it stays short
  server = await listen(testServer({ prefixCaching: true, numGpuBlocks: 24 }).app, '127.0.0.1', 0);
});
after(() => server.close(0));

test('trace: one parallel-sampling request per round with n choices; a saved trace keeps n', () => {
  const pool = Array.from({ length: 4000 }, (_, i) => (i * 37) % 250);
  const t = buildTrace({ capacity: { blockSize: 16, numGpuBlocks: 40 }, maxModelLen: 512, maxTokens: 16, seed: 3, rounds: 2, pool });
  for (const round of t.rounds) {
    const parallel = round.filter((q) => q.n !== undefined);
    assert.equal(parallel.length, 1);
    assert.equal(parallel[0].n, PARALLEL_CHOICES);
    assert.ok(parallel[0].features.includes('parallel-sampling'));
  }
  assert.deepEqual(parseTrace(JSON.stringify(t), 't.json'), t);
});

test('engine: choice i of an n = 3 request equals the request alone with seed + i', async () => {
  const api = new ServerApi(new ProbeClient({ baseUrl: server.url, budget: new RetryBudget(10), seed: 0, maxRetries: 0 }));
  try {
    assert.ok((await api.resolveModel()).ok);
    const q: TraceRequest = { id: 'p', prompt: Array.from({ length: 40 }, (_, i) => 3 + ((i * 11) % 200)), maxTokens: 6, start: [], delayMs: 0, n: 3, features: ['parallel-sampling'] };
    const all = await exchange(api, q, 3, 5);
    assert.ok(all.ok, all.ok ? '' : all.error);
    assert.equal(all.value.choices?.length, 3);
    for (let i = 0; i < 3; i++) {
      const alone = await exchange(api, { ...q, n: 1 }, 3, 5 + i);
      assert.ok(alone.ok);
      assert.deepEqual(all.value.choices![i].tokens, alone.value.generation.tokens, `choice ${i}`);
    }
  } finally {
    await api.client.close();
  }
});

test('workload run: each choice is a judged record ID.cI against the request alone; the replay judges the same ids', async () => {
  const probe = (replay?: Parameters<typeof runWorkload>[0]['replay']) =>
    runWorkload({ target: { url: server.url }, reference: { url: server.url }, corpus, rounds: 1, maxTokens: 4, seed: 2, logprobs: 3, pageSize: 16, ...(replay ? { replay } : {}), client: { maxRetries: 0 } });
  const first = await probe();
  const choices = first.requests.filter((r) => r.features.includes('parallel-sampling'));
  assert.deepEqual(choices.map((r) => [r.id, r.outcome]), [0, 1, 2].map((i) => [`r0-parallel.c${i}`, 'identical']));
  assert.equal(first.counts.planned, first.requests.length + first.counts.notRun, 'each choice is planned, as it is judged');
  assert.equal(first.counts.notRun, 0);
  const again = await probe(parseTrace(JSON.stringify(first.trace), 'trace.json'));
  assert.deepEqual(again.requests.filter((r) => r.features.includes('parallel-sampling')).map((r) => r.id), choices.map((r) => r.id));
});
