import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRng } from '../core/rng.js';
import {
  calibrateMargin,
  DEFAULT_MARGIN_POLICY,
  gapNoiseSamples,
  noiseSamples,
  quantile,
  RunningMargin,
} from './margin.js';
import { compareGenerations } from './compare.js';
import { generation, greedyStep, logSoftmax, step } from './testing.js';
import type { GeneratedStep } from './types.js';

test('quantile interpolates like numpy (type 7)', () => {
  assert.equal(quantile([4, 1, 3, 2], 0.5), 2.5);
  assert.equal(quantile([...Array(101).keys()], 0.99), 99);
  assert.equal(quantile([7], 0.99), 7);
  assert.throws(() => quantile([], 0.5));
});

test('diagnostic noise samples: shared top-k tokens at agreeing steps only', () => {
  const ref = generation([
    step(1, [
      [1, -0.1],
      [2, -2.5],
      [3, -4],
    ]),
    step(5, [
      [5, -0.2],
      [6, -1.9],
    ]),
  ]);
  const cand = generation([
    step(1, [
      [1, -0.15],
      [2, -2.4],
      [9, -3],
    ]),
    step(6, [
      [6, -0.3],
      [5, -1],
    ]),
  ]);
  const s = noiseSamples(ref, cand, 1);
  assert.equal(s.length, 2);
  assert.ok(Math.abs(s[0] - 0.05) < 1e-12 && Math.abs(s[1] - 0.1) < 1e-12);
});

test('gap noise: how much the chosen-vs-runner-up gap moved, at agreeing steps only', () => {
  const ref = generation([
    step(1, [
      [1, -0.1],
      [2, -2.5],
      [3, -4],
    ]),
    step(5, [
      [5, -0.2],
      [6, -1.9],
    ]),
  ]);
  const cand = generation([
    step(1, [
      [1, -0.15],
      [2, -2.3],
      [9, -3],
    ]),
    step(6, [
      [6, -0.3],
      [5, -1],
    ]),
  ]);
  const s = gapNoiseSamples(ref, cand, 2);
  assert.equal(s.length, 1, 'the second step disagrees: not a noise sample');
  assert.ok(Math.abs(s[0] - 0.25) < 1e-12);
});

test('running margin: pooled over the run in prompt order', () => {
  const running = new RunningMargin();
  const g = generation(
    Array.from({ length: 30 }, () =>
      step(1, [
        [1, -0.1],
        [2, -2],
      ]),
    ),
  );
  const h = generation(
    Array.from({ length: 30 }, () =>
      step(1, [
        [1, -0.2],
        [2, -1.9],
      ]),
    ),
  );
  assert.equal(running.next(g, generation(g.steps.slice(0, 10))).source, 'uncalibrated');
  const cal = running.next(g, h);
  assert.equal(cal.samples, 40);
  assert.ok(Math.abs(cal.margin - 1.5 * 0.2) < 1e-9);
});

test('running margin with a window: noise past the window cannot widen the margin', () => {
  const quiet = (n: number) =>
    Array.from({ length: n }, () =>
      step(1, [
        [1, -0.1],
        [2, -2],
      ]),
    );
  const loud = (n: number) =>
    Array.from({ length: n }, () =>
      step(1, [
        [1, -0.1],
        [2, -6],
      ]),
    );
  // prompt of 90 tokens, window 100: generated steps 0..10 sit at positions 90..100 (inside)
  const ref = generation([...quiet(11), ...quiet(29)]);
  const cand = generation([...quiet(11), ...loud(29)]);
  const withWindow = new RunningMargin(undefined, 100);
  const first = withWindow.next(ref, cand, 90);
  assert.equal(first.scope, 'all-steps', '11 inside samples are not enough yet');
  assert.equal(first.margin, DEFAULT_MARGIN_POLICY.cap);
  const second = withWindow.next(ref, cand, 90);
  assert.equal(second.scope, 'within-window');
  assert.equal(second.margin, DEFAULT_MARGIN_POLICY.floor);
  const without = new RunningMargin();
  without.next(ref, cand, 90);
  assert.equal(without.next(ref, cand, 90).margin, DEFAULT_MARGIN_POLICY.cap);
});

test('calibration: too few samples → the cap; otherwise clamp(safety·q99, floor, cap)', () => {
  assert.deepEqual(calibrateMargin([0.01, 0.02]), {
    margin: DEFAULT_MARGIN_POLICY.cap,
    samples: 2,
    source: 'uncalibrated',
  });
  const tiny = calibrateMargin(Array(100).fill(0.001));
  assert.equal(tiny.margin, DEFAULT_MARGIN_POLICY.floor);
  const mid = calibrateMargin(Array(100).fill(0.1));
  assert.ok(Math.abs(mid.margin - 1.5 * 0.1) < 1e-12);
  assert.equal(calibrateMargin(Array(100).fill(5)).margin, DEFAULT_MARGIN_POLICY.cap);
});

// The calibration's claim, checked by simulation: when the candidate's logits are the reference's
// plus independent noise, the margin learned from agreeing steps covers (almost) every flip the
// noise causes. Logits are peaked like a language model's (a few plausible tokens, a long tail).
test('simulated benign noise: flips fall inside the calibrated margin', () => {
  const rng = createRng(7);
  const V = 64;
  for (const sigma of [0.01, 0.05, 0.2]) {
    let flips = 0;
    let nearTies = 0;
    const refSteps: GeneratedStep[] = [];
    const candSteps: GeneratedStep[] = [];
    for (let t = 0; t < 1500; t++) {
      const logits = Array.from({ length: V }, () => 3 * rng.normal());
      const cand = logits.map((x) => x + sigma * rng.normal());
      refSteps.push(greedyStep(logSoftmax(logits), 5));
      candSteps.push(greedyStep(logSoftmax(cand), 5));
    }
    // calibrate on steps that agree (what a real run sees before its first divergence)
    const agreeing = refSteps.map((s, i) => s.token === candSteps[i].token);
    const ref = generation(refSteps.filter((_, i) => agreeing[i]));
    const cand = generation(candSteps.filter((_, i) => agreeing[i]));
    const cal = calibrateMargin(gapNoiseSamples(ref, cand, ref.steps.length));
    for (let i = 0; i < refSteps.length; i++) {
      if (agreeing[i]) continue;
      flips++;
      const c = compareGenerations(generation([refSteps[i]]), generation([candSteps[i]]), cal.margin);
      if (c.divergence?.kind === 'near-tie') nearTies++;
    }
    assert.ok(flips > 0, `σ=${sigma}: the simulation must produce flips`);
    if (process.env.FAULTLINE_VERBOSE) console.log(sigma, flips, nearTies, cal);
    assert.ok(
      nearTies / flips >= 0.99,
      `σ=${sigma}: ${nearTies}/${flips} flips inside margin ${cal.margin.toFixed(3)}`,
    );
  }
});
