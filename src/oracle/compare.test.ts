import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareGenerations } from './compare.js';
import { generation, step, sure } from './testing.js';

test('identical generations', () => {
  const g = generation([sure(1), sure(2)]);
  assert.deepEqual(compareGenerations(g, g, 0.3), { identical: true, agreeing: 2 });
});

test('a flip between two close tokens, each in the other top-k, is a near-tie', () => {
  const ref = generation([
    sure(1),
    step(10, [
      [10, -0.65],
      [11, -0.75],
      [12, -3],
    ]),
  ]);
  const cand = generation([
    sure(1),
    step(11, [
      [11, -0.66],
      [10, -0.7],
      [12, -3],
    ]),
  ]);
  const c = compareGenerations(ref, cand, 0.3);
  assert.equal(c.identical, false);
  assert.equal(c.agreeing, 1);
  assert.equal(c.divergence?.kind, 'near-tie');
  assert.ok(Math.abs(c.divergence!.referenceMargin! - 0.1) < 1e-12);
});

test('the same flip is suspicious when the reference was confident', () => {
  const ref = generation([
    step(10, [
      [10, -0.1],
      [11, -2.4],
    ]),
  ]);
  const cand = generation([
    step(11, [
      [11, -0.2],
      [10, -1.8],
    ]),
  ]);
  const d = compareGenerations(ref, cand, 0.3).divergence!;
  assert.equal(d.kind, 'suspicious');
  assert.match(d.reason, /confident/);
});

test('a candidate token outside the reference top-k: suspicious with a lower-bound gap', () => {
  const ref = generation([
    step(10, [
      [10, -0.1],
      [11, -2.4],
      [12, -3.0],
    ]),
  ]);
  const cand = generation([
    step(99, [
      [99, -0.2],
      [10, -1.8],
    ]),
  ]);
  const d = compareGenerations(ref, cand, 5).divergence!;
  assert.equal(d.kind, 'suspicious');
  assert.equal(d.candidateInReferenceTop, false);
  assert.equal(d.marginIsLowerBound, true);
  assert.ok(Math.abs(d.referenceMargin! - 2.9) < 1e-12);
});

test('the reference token missing from the candidate top-k is suspicious even at a small gap', () => {
  const ref = generation([
    step(10, [
      [10, -0.6],
      [11, -0.7],
    ]),
  ]);
  const cand = generation([
    step(11, [
      [11, -0.01],
      [50, -6],
    ]),
  ]);
  assert.equal(compareGenerations(ref, cand, 0.3).divergence?.kind, 'suspicious');
});

test('different lengths for the same request are suspicious', () => {
  const ref = generation([sure(1), sure(2), sure(3)]);
  const cand = generation([sure(1), sure(2)]);
  const d = compareGenerations(ref, cand, 0.3).divergence!;
  assert.equal(d.index, 2);
  assert.equal(d.kind, 'suspicious');
  assert.equal(d.candidateToken, undefined);
  assert.match(d.reason, /different lengths/);
});
