import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isUserError } from '../../core/errors.js';
import { formatInterval, parseInterval } from './interval.js';

test('durations as Prometheus writes them, largest unit first', () => {
  assert.equal(parseInterval('15m'), 900_000);
  assert.equal(parseInterval('90s'), 90_000);
  assert.equal(parseInterval('1h30m'), 5_400_000);
  assert.equal(parseInterval('1d2h3m4s'), 86_400_000 + 7_200_000 + 180_000 + 4000);
  assert.equal(parseInterval(' 1s '), 1000);
});

test('a bare number, a wrong order, a repeated unit, zero and out-of-range values are usage errors', () => {
  for (const bad of ['15', '', 'm', '30m1h', '1m1m', '0s', '8d', '1.5m', '15 m', '15min', '-1m', '1h 30m'])
    assert.throws(
      () => parseInterval(bad),
      (e) => isUserError(e) && e.message.startsWith(`--every ${JSON.stringify(bad)}`) && /30s, 15m/.test(e.hint ?? ''),
      bad,
    );
});

test('formatInterval writes back what parseInterval reads', () => {
  for (const text of ['1s', '15m', '1h30m', '1d2h3m4s', '7d']) assert.equal(formatInterval(parseInterval(text)), text);
});
