import { test } from 'node:test';
import assert from 'node:assert/strict';
import { calibrateMargin } from './margin.js';
import { failedJudgement, judgeRequest } from './verdict.js';
import { generation, scored, step, sure } from './testing.js';
import type { ScoredToken } from './types.js';

const margin = { margin: 0.3, samples: 100, noise: 0.1, source: 'observed' as const };
const frame = { window: 8, pageSize: 4 };
/** Scores for generated tokens where the reference agrees (rank 1) except where `override` says. */
const agreeing = (tokens: number[], override: Record<number, ScoredToken> = {}) =>
  tokens.map((t, i) => override[i] ?? scored(t, -0.05, 1));

test('identical: every token judged clean', () => {
  const g = generation([sure(1), sure(2), sure(3)]);
  const j = judgeRequest({ reference: g, candidate: g, promptLength: 4, frame, margin });
  assert.equal(j.verdict, 'identical');
  assert.equal(j.judgedTokens, 3);
});

test('benign drift: a near-tie flip and a continuation the reference rates plausible', () => {
  const ref = generation([
    sure(1),
    step(10, [
      [10, -0.65],
      [11, -0.75],
    ]),
    sure(20),
    sure(21),
  ]);
  const cand = generation([
    sure(1),
    step(11, [
      [11, -0.66],
      [10, -0.7],
    ]),
    sure(30),
    sure(31),
  ]);
  const scores = agreeing(cand.tokens, { 1: scored(11, -0.75, 2, -0.65, 10) });
  const j = judgeRequest({ reference: ref, candidate: cand, scores, promptLength: 4, frame, margin });
  assert.equal(j.verdict, 'benign-drift');
  assert.equal(j.corruptTokens.length, 0);
  assert.equal(j.judgedTokens, 4);
  assert.match(j.notes.join('\n'), /near-tie/);
});

test('corrupt: an implausible token long after a benign flip, located against the window', () => {
  const ref = generation([
    sure(1),
    step(10, [
      [10, -0.65],
      [11, -0.75],
    ]),
    sure(20),
    sure(21),
    sure(22),
  ]);
  const cand = generation([
    sure(1),
    step(11, [
      [11, -0.66],
      [10, -0.7],
    ]),
    sure(30),
    sure(99),
    sure(32),
  ]);
  const scores = agreeing(cand.tokens, {
    1: scored(11, -0.75, 2, -0.65, 10),
    3: scored(99, -8, 57, -0.02, 31),
  });
  const j = judgeRequest({ reference: ref, candidate: cand, scores, promptLength: 6, frame, margin });
  assert.equal(j.verdict, 'corrupt');
  assert.equal(j.corruptTokens.length, 1);
  const c = j.corruptTokens[0];
  assert.deepEqual(
    {
      index: c.index,
      position: c.position,
      sinceWindow: c.sinceWindow,
      pageOffset: c.pageOffset,
      class: c.class,
    },
    { index: 3, position: 9, sinceWindow: 1, pageOffset: 1, class: 'implausible' },
  );
  assert.equal(j.crossScore?.counts.implausible, 1);
  assert.equal(j.evidence.strength, 'decisive', 'a gap of 8 nat is far beyond any benign noise');
  assert.match(j.reasons.join('\n'), /decisive evidence: token at generated index 3 trails .* by 7\.98 nat/);
});

/** Reference 1 2, candidate 1 7; the reference scores the candidate's 7 at `logprob` (its best: −0.01). */
function flipAtOne(logprob: number) {
  const ref = generation([sure(1), sure(2)]);
  const cand = generation([sure(1), sure(7)]);
  const scores = agreeing(cand.tokens, { 1: scored(7, logprob, 2, -0.01, 2) });
  return {
    ref,
    judgement: judgeRequest({ reference: ref, candidate: cand, scores, promptLength: 2, frame, margin }),
  };
}

test('corrupt: the first divergence itself was confident', () => {
  const j = flipAtOne(-5).judgement;
  assert.equal(j.verdict, 'corrupt');
  assert.equal(j.corruptTokens.length, 1, 'the divergence token is listed once');
  assert.equal(j.corruptTokens[0].class, 'suspicious');
  assert.equal(j.evidence.strength, 'decisive');
});

test('weak evidence: a corrupt token a little beyond the margin, and the clean verdicts carry none', () => {
  const { ref, judgement: j } = flipAtOne(-1.5);
  assert.equal(j.verdict, 'corrupt');
  assert.deepEqual(j.evidence, { strength: 'weak', worstGap: 1.49 });
  const same = judgeRequest({ reference: ref, candidate: ref, promptLength: 2, frame, margin });
  assert.equal(same.evidence.strength, 'none');
  assert.equal(failedJudgement(['x']).evidence.strength, 'none');
});

test('golden runs (no cross-scores): the first divergence decides, then excess repetition', () => {
  const ref = generation([
    sure(1),
    step(10, [
      [10, -0.65],
      [11, -0.75],
    ]),
    ...[5, 6, 7, 8, 9, 4, 3, 2].map(sure),
  ]);
  const cand = generation([
    sure(1),
    step(11, [
      [11, -0.66],
      [10, -0.7],
    ]),
    ...[5, 6, 7, 8, 9, 4, 3, 2].map(sure),
  ]);
  const benign = judgeRequest({ reference: ref, candidate: cand, promptLength: 2, frame, margin });
  assert.equal(benign.verdict, 'benign-drift');
  assert.equal(benign.judgedTokens, 2);
  assert.match(benign.notes.join(), /not judged/);
  const loop = generation([
    sure(1),
    step(11, [
      [11, -0.66],
      [10, -0.7],
    ]),
    ...[5, 6, 5, 6, 5, 6, 5, 6].map(sure),
  ]);
  const j = judgeRequest({ reference: ref, candidate: loop, promptLength: 2, frame, margin });
  assert.equal(j.verdict, 'corrupt');
  assert.match(j.reasons[0], /2-token pattern ×4/);
});

test('with cross-scores a loop the reference itself continues is a note, not corruption', () => {
  const ref = generation([
    sure(1),
    step(10, [
      [10, -0.65],
      [11, -0.75],
    ]),
    ...[5, 6, 7, 8, 9, 4].map(sure),
  ]);
  const cand = generation([
    sure(1),
    step(11, [
      [11, -0.66],
      [10, -0.7],
    ]),
    ...[5, 6, 5, 6, 5, 6].map(sure),
  ]);
  const scores = agreeing(cand.tokens, { 1: scored(11, -0.75, 2, -0.65, 10) });
  const j = judgeRequest({ reference: ref, candidate: cand, scores, promptLength: 2, frame, margin });
  assert.equal(j.verdict, 'benign-drift');
  assert.equal(j.excessRepetition.length, 1);
  assert.match(j.notes.join('\n'), /plausible under the reference/);
});

test('failed requests carry their errors', () => {
  const j = failedJudgement(['HTTP 500']);
  assert.equal(j.verdict, 'failed');
  assert.deepEqual(j.errors, ['HTTP 500']);
  assert.equal(calibrateMargin([]).source, 'uncalibrated');
});
