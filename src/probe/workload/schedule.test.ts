/**
 * Start conditions count tokens and outlive the request they wait on: one that ended well without
 * the event (finished before streaming k tokens, or before the cancel could land) releases its
 * waiters with the reason; one that failed cuts them off.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StartTracker } from './schedule.js';

test('"k tokens streamed" holds on the token count, however many events carried them', async () => {
  const t = new StartTracker('r0-cancelled');
  const waiting = t.when({ after: 'r0-cancelled', event: 'tokens', tokens: 3 });
  t.update(() => ((t.state = 'running'), (t.tokens = 4)));
  assert.deepEqual(await waiting, { held: true });
});

test('a request that finished before streaming k tokens releases its waiters, with the reason', async () => {
  const t = new StartTracker('r0-cancelled');
  const tokens = t.when({ after: 'r0-cancelled', event: 'tokens', tokens: 3 });
  const cancelled = t.when({ after: 'r0-cancelled', event: 'cancelled' });
  t.update(() => ((t.tokens = 2), (t.state = 'done')));
  const a = await tokens;
  const b = await cancelled;
  assert.ok(
    a.held && /r0-cancelled finished after 2 token\(s\), before streaming 3/.test(a.released ?? ''),
    JSON.stringify(a),
  );
  assert.ok(b.held && /finished it before the cancel could land/.test(b.released ?? ''), JSON.stringify(b));
});

test('a cancel that landed satisfies "cancelled"; waiting on "done" of a cancelled request, or on a failed one, cuts off', async () => {
  const t = new StartTracker('x');
  const cancelled = t.when({ after: 'x', event: 'cancelled' });
  const done = t.when({ after: 'x', event: 'done' });
  t.update(() => ((t.tokens = 8), (t.state = 'cancelled')));
  assert.deepEqual(await cancelled, { held: true });
  assert.deepEqual(await done, { held: false });
  const f = new StartTracker('y');
  const tokens = f.when({ after: 'y', event: 'tokens', tokens: 2 });
  f.update(() => (f.state = 'failed'));
  assert.deepEqual(await tokens, { held: false });
  assert.deepEqual(
    await f.when({ after: 'y', event: 'cancelled' }),
    { held: false },
    'asked after the end, the answer is the same',
  );
});
