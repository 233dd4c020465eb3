import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRng } from './rng.js';

test('same seed gives the same sequence, different seeds differ', () => {
  const a = createRng(42);
  const b = createRng(42);
  const c = createRng(43);
  const sa = Array.from({ length: 8 }, () => a.next());
  const sb = Array.from({ length: 8 }, () => b.next());
  const sc = Array.from({ length: 8 }, () => c.next());
  assert.deepEqual(sa, sb);
  assert.notDeepEqual(sa, sc);
  for (const x of sa) assert.ok(x >= 0 && x < 1);
});

test('int stays in range and normal has roughly unit variance', () => {
  const r = createRng(7);
  let sum = 0;
  let sq = 0;
  const n = 20000;
  for (let i = 0; i < n; i++) {
    const k = r.int(5);
    assert.ok(Number.isInteger(k) && k >= 0 && k < 5);
    const z = r.normal();
    sum += z;
    sq += z * z;
  }
  assert.ok(Math.abs(sum / n) < 0.05);
  assert.ok(Math.abs(sq / n - 1) < 0.05);
});
