import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyToken, corruptTokenCount, crossScore, DEFAULT_PLAUSIBILITY } from './crossscore.js';
import { scored } from './testing.js';

const T = DEFAULT_PLAUSIBILITY;

test('token classes: agree, near-tie, suspicious, implausible', () => {
  assert.equal(classifyToken(scored(5, -0.2, 1), 0.3, T), 'agree');
  assert.equal(classifyToken(scored(5, -0.9, 2, -0.7, 6), 0.3, T), 'near-tie');
  assert.equal(classifyToken(scored(5, -2.5, 2, -0.1, 6), 0.3, T), 'suspicious');
  // far below but still in the top-5: suspicious, not implausible (a flat distribution's tail)
  assert.equal(classifyToken(scored(5, -7, 4, -0.1, 6), 0.3, T), 'suspicious');
  assert.equal(classifyToken(scored(5, -7, 40, -0.1, 6), 0.3, T), 'implausible');
  // rank beyond k but not improbable (flat distribution): suspicious only
  assert.equal(classifyToken(scored(5, -4, 9, -3, 6), 0.3, T), 'suspicious');
  // rank known only as a lower bound (echo mode, token outside the top-k)
  assert.equal(
    classifyToken({ ...scored(5, -9, 6, -0.1, 6), rankIsLowerBound: true }, 0.3, T),
    'implausible',
  );
});

test('crossScore judges from the divergence on and lists every non-agreeing token', () => {
  const tokens = [1, 2, 3, 4, 5];
  const scores = [
    scored(1, -0.1, 1),
    scored(2, -3, 3, -0.1, 9),
    scored(3, -0.8, 2, -0.6, 7),
    scored(4, -9, 30, -0.05, 8),
    scored(5, -0.1, 1),
  ];
  const s = crossScore(tokens, scores, { margin: 0.3, from: 2 });
  assert.equal(s.judged, 3);
  assert.deepEqual(s.counts, { agree: 1, 'near-tie': 1, suspicious: 0, implausible: 1 });
  assert.deepEqual(
    s.flagged.map((f) => [f.index, f.class]),
    [
      [2, 'near-tie'],
      [3, 'implausible'],
    ],
  );
  assert.equal(corruptTokenCount(s), 1);
  assert.ok(Math.abs(s.meanNll - (0.8 + 9 + 0.1) / 3) < 1e-12);
});

test('misaligned scores are a bug, not a verdict', () => {
  assert.throws(() => crossScore([1, 2], [scored(1, 0, 1)], { margin: 0.3 }), /2 candidate tokens/);
  assert.throws(
    () => crossScore([1, 2], [scored(1, 0, 1), scored(3, 0, 1)], { margin: 0.3 }),
    /score 1 is for token 3/,
  );
});
