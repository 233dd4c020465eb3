import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runOrdered } from './pool.js';

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('results are committed in index order whatever the completion order', async () => {
  const order: number[] = [];
  await runOrdered(
    8,
    4,
    async (i) => {
      await delay((8 - i) * 3);
      return i * 10;
    },
    (i, r) => {
      order.push(i);
      assert.equal(r, i * 10);
      return true;
    },
  );
  assert.deepEqual(order, [0, 1, 2, 3, 4, 5, 6, 7]);
});

test('commit returning false stops new tasks and aborts running ones', async () => {
  let started = 0;
  let aborted = 0;
  const { committed } = await runOrdered(
    20,
    2,
    async (_i, signal) => {
      started++;
      await delay(5);
      if (signal.aborted) aborted++;
      return 0;
    },
    (i) => i < 2,
  );
  assert.equal(committed, 3);
  assert.ok(started <= 5, `started ${started}`);
  assert.ok(aborted <= 2);
});

test('aborting the outside stop signal cancels running tasks and starts no new one', async () => {
  const stop = new AbortController();
  let started = 0;
  let sawAbort = 0;
  const committed: number[] = [];
  const run = runOrdered(
    50,
    2,
    async (_i, signal) => {
      started++;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 1000);
        signal.addEventListener('abort', () => {
          clearTimeout(t);
          sawAbort++;
          resolve();
        });
      });
      return 0;
    },
    (i) => {
      committed.push(i);
      return true;
    },
    stop.signal,
  );
  await delay(20);
  stop.abort();
  const t0 = Date.now();
  await run;
  assert.ok(Date.now() - t0 < 500, 'the run ended at once, not after the tasks ran out');
  assert.equal(started, 2);
  assert.equal(sawAbort, 2);
  assert.deepEqual(committed, [], 'nothing is committed after the stop');
});
