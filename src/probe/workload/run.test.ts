/**
 * The workload run against servers that cannot serve the trace as written. The in-process fake
 * answers `stream: true` with one JSON body (the whole completion in one event, as a server that
 * buffers its stream does) and has no n > 1: the capability check says so before the trace, the
 * parallel family is left out, and the cancel family's waiters are released with the reason. Failed
 * requests never count as clean, and CLEAN is then impossible.
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

async function probeFakes(candidate: Partial<FakeServerOptions>, rounds = 2) {
  const [r, c] = await Promise.all([startFakeServer({ lm, maxModelLen: 256 }), startFakeServer({ lm, maxModelLen: 256, ...candidate })]);
  try {
    return await runWorkload({ target: { url: c.url }, reference: { url: r.url }, corpus, rounds, maxTokens: 8, seed: 1, logprobs: 3, pageSize: 16, client: { maxRetries: 0, backoffBaseMs: 1 } });
  } finally {
    await Promise.all([r.close(), c.close()]);
  }
}

test('a server that ignores stream (one JSON body) and has no n > 1: the cancel family is released, the parallel family left out, said before the trace; CLEAN', async () => {
  const report = await probeFakes({}, 3);
  assert.equal(report.verdict, 'CLEAN', report.reason);
  assert.equal(report.counts['cut-off'], 0, JSON.stringify(report.counts));
  assert.equal(report.counts.corrupt, 0);
  const notes = report.notes.join('\n');
  assert.match(notes, /r0-cancelled finished after 64 token\(s\) in 1 streamed event\(s\), before the trace could cancel it/);
  assert.match(notes, /request\(s\) started without their trigger/);
  assert.match(notes, /the parallel family is left out \(it sends one request with n = 3 choices\): the target has no parallel-sampling/);
  assert.match(notes, /does not report vllm:cache_config_info/);
  assert.equal(report.capacity.source, 'assumed');
  assert.ok(report.trace.rounds.flat().every((q) => q.n === undefined), 'no parallel request was sent');
  const support = Object.fromEntries(report.capabilities.target.checks.map((c) => [c.name, c.support]));
  assert.deepEqual(support, { 'token-id-generation': 'yes', logprobs: 'yes', 'ignore-eos': 'unverified', 'min-tokens': 'unverified', 'prompt-logprobs': 'yes', 'parallel-sampling': 'no', streaming: 'yes', 'kv-capacity': 'no' });
  assert.deepEqual(report.capabilities.target.stream, { tokens: 8, events: 1, countedBy: 'logprobs' });
  const taker = report.requests.find((q) => q.id === 'r0-taker-0')!;
  assert.match(taker.started ?? '', /before the cancel could land/);
});

test('failed requests on the target: recorded with their error, INCONCLUSIVE', async () => {
  const report = await probeFakes({ faults: (path, i) => (path === '/v1/completions' && i % 5 === 4 ? { kind: 'status', status: 500 } : undefined) });
  assert.equal(report.verdict, 'INCONCLUSIVE');
  assert.ok(report.counts.failed >= 1);
  assert.ok(report.requests.some((q) => q.outcome === 'failed' && /HTTP 500/.test(q.errors.join(' '))));
});
