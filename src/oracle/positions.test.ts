import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describePosition, generatedPosition, isPastWindow, summarizePositions } from './positions.js';

test('position, position − window and page offset', () => {
  assert.deepEqual(describePosition(300, { window: 128, pageSize: 16 }), {
    position: 300,
    sinceWindow: 172,
    pageOffset: 12,
  });
  assert.deepEqual(describePosition(5, {}), { position: 5 });
  assert.equal(generatedPosition(100, 0), 100);
});

test('a token at position == window came from seq_len == window: not past it', () => {
  assert.equal(isPastWindow(describePosition(128, { window: 128 })), false);
  assert.equal(isPastWindow(describePosition(129, { window: 128 })), true);
  assert.equal(isPastWindow(describePosition(129, {})), false);
});

test('summary counts within/past the window and page offsets', () => {
  const s = summarizePositions(
    [100, 129, 200, 145].map((p) => describePosition(p, { window: 128, pageSize: 16 })),
  );
  assert.equal(s.withinWindow, 1);
  assert.equal(s.pastWindow, 3);
  assert.equal(s.minSinceWindow, -28);
  assert.equal(s.maxSinceWindow, 72);
  assert.deepEqual(s.byPageOffset, { 4: 1, 1: 2, 8: 1 });
});
