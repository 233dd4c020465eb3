import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  accuracyCheck,
  checkLogprobsClose,
  continuationCorrect,
  exactMatch,
  wilsonLower,
} from './baselines.js';
import { generation, step, sure } from './testing.js';

test('exact match fails on any token difference', () => {
  const a = generation([sure(1), sure(2)]);
  assert.equal(exactMatch(a, a).pass, true);
  const r = exactMatch(a, generation([sure(1), sure(3)]));
  assert.deepEqual([r.pass, r.index], [false, 1]);
  assert.equal(exactMatch(a, generation([sure(1)])).pass, false);
});

test('check_logprobs_close: top-N membership at the first mismatch, then stop', () => {
  const ref = generation([
    sure(1),
    step(10, [
      [10, -0.6],
      [11, -0.8],
    ]),
    sure(5),
  ]);
  const near = generation([
    sure(1),
    step(11, [
      [11, -0.6],
      [10, -0.7],
    ]),
    sure(99),
  ]);
  const r = checkLogprobsClose(ref, near);
  assert.equal(r.pass, true, 'everything after the first mismatch is ignored');
  assert.equal(r.index, 1);
  const far = generation([
    sure(1),
    step(42, [
      [42, -0.1],
      [43, -3],
    ]),
    sure(5),
  ]);
  assert.equal(checkLogprobsClose(ref, far).pass, false);
  // logprob values are never compared: a confident reference still passes if membership holds
  const confident = generation([
    sure(1),
    step(10, [
      [10, -0.01],
      [11, -9],
    ]),
    sure(5),
  ]);
  assert.equal(checkLogprobsClose(confident, near).pass, true);
});

test('check_logprobs_close with always_check_logprobs checks matching steps too', () => {
  const a = generation([step(1, [[1, -0.1]])]);
  const b = generation([step(1, [[1, -0.1]])]);
  assert.equal(checkLogprobsClose(a, b, { alwaysCheckLogprobs: true }).pass, true);
});

test('accuracy gates: absolute tolerance and Wilson lower bound', () => {
  const ref = Array(100)
    .fill(true)
    .map((_, i) => i < 80);
  const cand = Array(100)
    .fill(true)
    .map((_, i) => i < 74);
  assert.equal(accuracyCheck(ref, cand).pass, true, '0.74 ≥ 0.80 − 0.08');
  assert.equal(
    accuracyCheck(
      ref,
      Array(100)
        .fill(false)
        .map((_, i) => i < 70),
    ).pass,
    false,
  );
  assert.ok(Math.abs(wilsonLower(75, 100) - 0.6728265635678274) < 1e-9);
  assert.equal(accuracyCheck(ref, cand, { gate: 'wilson' }).pass, false, 'Wilson bound 0.66 < 0.80·0.92');
  assert.equal(continuationCorrect([1, 2], [1, 2, 3]), true);
  assert.equal(continuationCorrect([1, 2], [1, 3]), false);
});
