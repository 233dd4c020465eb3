/**
 * Failed requests are named in the verdict line, and `--max-failed-requests` makes them fatal.
 * The target answers HTTP 500 to every attempt of one request (first try and its 3 retries;
 * concurrency 1 keeps the call order fixed), so exactly one request of the run fails.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startFakeServer, type FakeServer } from '../../probe/testing/fake-server.js';
import { trainByteNgram } from '../../probe/testing/ngram-lm.js';
import { memoryIO } from '../io.js';
import { main } from '../main.js';

const promptText = fileURLToPath(new URL('../../../test/fixtures/probe/prose-sample.txt', import.meta.url));
let reference: FakeServer;
let flaky: FakeServer;
let failing = new Set<number>();

before(async () => {
  const lm = trainByteNgram(readFileSync(promptText, 'utf8'), 5);
  reference = await startFakeServer({ lm });
  flaky = await startFakeServer({
    lm,
    faults: (path, index) => (path === '/v1/completions' && failing.has(index) ? { kind: 'status', status: 500 } : undefined),
  });
});
after(async () => {
  await Promise.all([reference.close(), flaky.close()]);
});

/** The fourth request from now fails on every attempt. */
function failFourthRequest(): void {
  const next = flaky.calls.get('/v1/completions') ?? 0;
  failing = new Set([3, 4, 5, 6].map((k) => next + k));
}

async function probe(extra: string[]) {
  failFourthRequest();
  const io = memoryIO();
  const args = ['probe', '--target', flaky.url, '--reference', reference.url, '--window', '32', '--page-size', '8', '--prompt-text', promptText];
  const code = await main([...args, '--max-tokens', '16', '--requests', '40', '--concurrency', '1', ...extra], io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

test('CLEAN with a failed request says so in the verdict line, with the reason and the tolerance', async () => {
  const r = await probe([]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^faultline probe: CLEAN \(1 of \d+ requests failed: POST \/v1\/completions: HTTP 500.*; at most 10\.0% of requests may fail\)$/m);
});

test('--max-failed-requests 0: one failed request makes the run INCONCLUSIVE (exit 3), and JSON says why', async () => {
  const r = await probe(['--max-failed-requests', '0', '--format', 'json']);
  assert.equal(r.code, 3, r.stdout + r.stderr);
  const json = JSON.parse(r.stdout);
  assert.equal(json.verdict, 'INCONCLUSIVE');
  assert.match(json.reason, /1 of \d+ requests failed \(no request may fail\)/);
  assert.match(json.failedRequests, /^1 of \d+ requests failed: POST \/v1\/completions: HTTP 500/);
});

test('--max-failed-requests takes a count', async () => {
  const io = memoryIO();
  const code = await main(['probe', '--target', flaky.url, '--reference', reference.url, '--window', '32', '--max-failed-requests', '-1'], io);
  assert.equal(code, 2);
  assert.match(io.stderr(), /--max-failed-requests "-1" must be an integer ≥ 0/);
});
