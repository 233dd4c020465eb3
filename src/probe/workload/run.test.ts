/**
 * The workload run's verdict when the trace could not be served as written: failed requests and
 * requests cut off (their condition never held) never count as clean, and CLEAN is then impossible.
 * The in-process fake answers `stream: true` with one JSON body (it does not stream), so the
 * neighbours waiting for the cancelled request's tokens are cut off — the case a server that
 * buffers its stream would make.
 */
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startFakeServer, type FakeServerOptions } from '../testing/fake-server.js';
import { trainByteNgram, type LanguageModel } from '../testing/ngram-lm.js';
import { runWorkload } from './run.js';

const corpus = readFileSync(new URL('../../../test/fixtures/probe/prose-sample.txt', import.meta.url), 'utf8');
let lm: LanguageModel;
before(() => {
  lm = trainByteNgram(corpus, 5);
});

async function probeFakes(candidate: Partial<FakeServerOptions>) {
  const [r, c] = await Promise.all([startFakeServer({ lm, maxModelLen: 256 }), startFakeServer({ lm, maxModelLen: 256, ...candidate })]);
  try {
    return await runWorkload({ target: { url: c.url }, reference: { url: r.url }, corpus, rounds: 2, maxTokens: 8, seed: 1, logprobs: 3, pageSize: 16, client: { maxRetries: 0, backoffBaseMs: 1 } });
  } finally {
    await Promise.all([r.close(), c.close()]);
  }
}

test('requests cut off by the trace (a stream that never streams): INCONCLUSIVE, never CLEAN, and the report says why', async () => {
  const report = await probeFakes({});
  assert.equal(report.verdict, 'INCONCLUSIVE');
  assert.ok(report.counts['cut-off'] >= 2, JSON.stringify(report.counts));
  assert.equal(report.counts.corrupt, 0);
  assert.ok(report.counts.identical > 12, 'the rest of the trace was judged, identical');
  assert.match(report.notes.join('\n'), /does not report vllm:cache_config_info/);
  assert.equal(report.capacity.source, 'assumed');
  assert.ok(report.requests.some((q) => q.outcome === 'cut-off' && /never reached "tokens"/.test(q.errors[0])));
});

test('failed requests on the target: recorded with their error, INCONCLUSIVE', async () => {
  const report = await probeFakes({ faults: (path, i) => (path === '/v1/completions' && i % 5 === 4 ? { kind: 'status', status: 500 } : undefined) });
  assert.equal(report.verdict, 'INCONCLUSIVE');
  assert.ok(report.counts.failed >= 1);
  assert.ok(report.requests.some((q) => q.outcome === 'failed' && /HTTP 500/.test(q.errors.join(' '))));
});
