import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { startFakeServer } from '../probe/testing/fake-server.js';
import { trainByteNgram } from '../probe/testing/ngram-lm.js';
import { hungDetail } from './hung-requests.js';
import { createEngineProbe } from './probe-cell.js';

const prose = fileURLToPath(new URL('../../test/fixtures/probe/prose-sample.txt', import.meta.url));
const lm = trainByteNgram(readFileSync(prose, 'utf8'), 5);
const options = {
  suite: 'short',
  window: 32,
  page_size: 8,
  requests: 12,
  target_rate: 0.3,
  max_tokens: 8,
  concurrency: 2,
  seed: 1,
  timeout_s: 0.3,
  prompt_text: prose,
};

async function probeOnce(hangFrom: number | undefined) {
  const reference = await startFakeServer({ lm });
  // eight completion calls from `hangFrom` on answer long after the probe's deadline: every attempt
  // (the first and its three retries) of the requests in flight then finds no answer
  const hangs = (index: number) => hangFrom !== undefined && index >= hangFrom && index < hangFrom + 8;
  const cell = await startFakeServer({
    lm,
    faults: (path, index) =>
      path === '/v1/completions' && hangs(index) ? { kind: 'slow', ms: 1_500 } : undefined,
  });
  try {
    const probe = createEngineProbe({ rounds: 1, planDir: '/' });
    const signal = new AbortController().signal;
    const goldens = await probe.captureReference(reference.url, options, signal);
    return await probe.probeCell(cell.url, { cellId: 'c1', round: 0, reference: goldens, options, signal });
  } finally {
    await Promise.all([reference.close(), cell.close()]);
  }
}

test('a cell whose requests stop answering is timeout with the hung requests named, never pass', async () => {
  const r = await probeOnce(4);
  assert.equal(r.outcome, 'timeout', r.detail);
  assert.ok(r.hung && r.hung.length > 0, 'the hung requests are listed');
  assert.match(r.detail ?? '', /requests? hung \(no answer in 0\.3 s\)/);
  for (const id of r.hung!)
    assert.ok((r.detail ?? '').includes(id) || r.hung!.length > 8, `${id} is named in the detail`);
});

test('the same cell answering in time passes (the check above can fail)', async () => {
  const r = await probeOnce(undefined);
  assert.equal(r.outcome, 'pass', r.detail);
  assert.equal(r.hung, undefined);
});

test('hungDetail lists at most the first ids, then a count', () => {
  assert.equal(hungDetail(['a'], 60), '1 request hung (no answer in 60 s): a');
  assert.equal(
    hungDetail(['a', 'b', 'c'], undefined, 2),
    '3 requests hung (no answer within the deadline): a, b and 1 more',
  );
});
