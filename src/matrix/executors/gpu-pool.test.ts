import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { GpuPool, GpuWaitAborted } from './gpu-pool.js';

const flush = () => new Promise((r) => setImmediate(r));

/** Any order of requests (1…capacity GPUs), releases of a random holder and aborts of a random waiter. */
const step = fc.oneof(
  fc.record({ kind: fc.constant('acquire' as const), count: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('abort' as const), pick: fc.nat() }),
);

test('property: no GPU is ever held by two cells at once, every GPU is held or free, and every request is served in the end', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 8 }),
      fc.array(step, { maxLength: 60 }),
      fc.integer({ min: 1, max: 4 }),
      async (capacity, steps, maxSkips) => {
        const ids = Array.from({ length: capacity }, (_, i) => `gpu${i}`);
        const pool = new GpuPool(ids, { maxSkips });
        const held: string[][] = [];
        const waiting: { count: number; controller: AbortController; done: Promise<string[] | 'aborted'> }[] =
          [];
        const check = (): void => {
          const all = held.flat();
          assert.equal(new Set(all).size, all.length, `a GPU is held twice: ${JSON.stringify(held)}`);
          for (const id of all) assert.ok(ids.includes(id));
          assert.deepEqual(
            [...all, ...pool.free].sort(),
            [...ids].sort(),
            'every GPU is held or free, never both',
          );
        };
        const settle = async (): Promise<void> => {
          await flush();
          for (let i = waiting.length - 1; i >= 0; i--) {
            const w = waiting[i];
            const r = await Promise.race([w.done, flush().then(() => 'pending' as const)]);
            if (r === 'pending') continue;
            waiting.splice(i, 1);
            if (r !== 'aborted') {
              assert.equal(r.length, w.count, 'as many GPUs as asked for');
              held.push(r);
            }
          }
          check();
        };
        for (const s of steps) {
          if (s.kind === 'acquire') {
            const count = Math.min(s.count, capacity);
            const controller = new AbortController();
            const done = pool.acquire(count, controller.signal).catch((e) => {
              assert.ok(e instanceof GpuWaitAborted);
              return 'aborted' as const;
            });
            waiting.push({ count, controller, done });
          } else if (s.kind === 'release' && held.length)
            pool.release(held.splice(s.pick % held.length, 1)[0]);
          else if (s.kind === 'abort' && waiting.length) waiting[s.pick % waiting.length].controller.abort();
          await settle();
        }
        // liveness: releasing what is held serves every request still waiting (none is starved)
        while (held.length || waiting.length) {
          assert.ok(
            held.length > 0,
            `requests wait with every GPU free: ${waiting.map((w) => w.count).join(',')}`,
          );
          pool.release(held.shift()!);
          await settle();
        }
        assert.deepEqual(pool.free, ids);
      },
    ),
    { numRuns: 300 },
  );
});

test('cells of different sizes are packed: lowest free GPUs first, a small cell backfills past a big one, but only maxSkips times', async () => {
  const pool = new GpuPool(['0', '1', '2', '3'], { maxSkips: 2 });
  const a = await pool.acquire(2); // 0,1
  const b = await pool.acquire(1); // 2
  assert.deepEqual([a, b], [['0', '1'], ['2']]);
  const big = pool.acquire(4);
  let bigGot: string[] | undefined;
  void big.then((ids) => (bigGot = ids));
  const small1 = await pool.acquire(1); // backfills: 3 is free, the big cell cannot start anyway
  assert.deepEqual(small1, ['3']);
  pool.release(b);
  const small2 = await pool.acquire(1); // second backfill: the big cell has now been passed twice
  assert.deepEqual(small2, ['2']);
  pool.release(small1);
  let small3Got: string[] | undefined;
  void pool.acquire(1).then((ids) => (small3Got = ids));
  await flush();
  assert.equal(small3Got, undefined, 'after maxSkips the queue waits for the big cell');
  pool.release(a);
  pool.release(small2);
  await flush();
  assert.deepEqual(bigGot, ['0', '1', '2', '3']);
  assert.equal(small3Got, undefined);
  pool.release(bigGot!);
  await flush();
  assert.deepEqual(small3Got, ['0']);
});

test('a request larger than the pool, a double release and an aborted wait are refused plainly', async () => {
  const pool = new GpuPool(['0', '1']);
  await assert.rejects(pool.acquire(3), /3 GPUs wanted, the pool has 2/);
  const ids = await pool.acquire(1);
  pool.release(ids);
  assert.throws(() => pool.release(ids), /released twice/);
  assert.throws(() => new GpuPool(['0', '0']), /repeat/);
  const held = await pool.acquire(2);
  const controller = new AbortController();
  const waiting = pool.acquire(1, controller.signal);
  controller.abort();
  await assert.rejects(waiting, GpuWaitAborted);
  assert.equal(pool.waiting, 0);
  pool.release(held);
  assert.deepEqual(pool.free, ['0', '1']);
});
