import { test } from 'node:test';
import assert from 'node:assert/strict';
import { binomialCdf, clopperPearsonUpper, trialsForZeroEventBound } from './binomial.js';
import {
  DEFAULT_SEQUENTIAL,
  runSequential,
  sprtBounds,
  SequentialTest,
  tokenRate,
  type RequestOutcome,
} from './stats.js';

const close = (a: number, b: number, tol: number) => assert.ok(Math.abs(a - b) <= tol, `${a} vs ${b}`);

test('binomial CDF matches scipy', () => {
  close(binomialCdf(3, 20, 0.3), 0.10708680450373087, 1e-12);
  assert.equal(binomialCdf(20, 20, 0.3), 1);
});

test('one-sided 95% Clopper–Pearson upper bounds match scipy (research notes §6.1 table)', () => {
  const cases: [number, number, number][] = [
    [50, 0, 0.05815507911697225],
    [100, 1, 0.046559811453538935],
    [200, 2, 0.031142599414083726],
    [300, 5, 0.03472224430129498],
    [1000, 5, 0.010484076911415651],
  ];
  for (const [n, k, want] of cases) close(clopperPearsonUpper(k, n), want, 1e-9);
  assert.equal(clopperPearsonUpper(0, 0), 1);
  assert.equal(trialsForZeroEventBound(0.1), 29);
  assert.equal(trialsForZeroEventBound(0.05), 59);
});

test('SPRT boundaries are the worked example of the research notes', () => {
  const b = sprtBounds(DEFAULT_SEQUENTIAL);
  close(b.upper, 4.55, 0.005);
  close(b.lower, -2.99, 0.005);
  close(b.perCorrupt, 2.3, 0.005);
  close(b.perClean, -0.046, 0.0005);
});

test('two corrupt requests decide CORRUPT', () => {
  const s = runSequential(['corrupt', 'corrupt', 'clean']);
  assert.equal(s.verdict, 'CORRUPT');
  assert.equal(s.seen, 2, 'stops as soon as it decides');
});

test('29 clean requests bound the rate under 10% (rule of three); 28 are not enough', () => {
  const clean = (n: number) => Array<RequestOutcome>(n).fill('clean');
  const s = runSequential(clean(40));
  assert.equal(s.verdict, 'CLEAN');
  assert.equal(s.seen, 29);
  const short = runSequential(clean(28));
  assert.equal(short.verdict, 'INCONCLUSIVE');
  assert.match(short.reason, /at least 29 clean requests/);
});

test('failed requests never count as clean', () => {
  const outcomes: RequestOutcome[] = [...Array(29).fill('clean'), ...Array(10).fill('failed')];
  // failures first: 10 of 39 failed → more than 10%, no CLEAN
  const s = runSequential([...outcomes].reverse());
  assert.equal(s.verdict, 'INCONCLUSIVE');
  assert.match(s.reason, /10 of 39 requests failed/);
  const all = runSequential(Array(5).fill('failed'));
  assert.equal(all.verdict, 'INCONCLUSIVE');
  assert.equal(all.judged, 0);
});

test('a single corrupt request among clean ones: neither verdict until the evidence is in', () => {
  const s = runSequential(['corrupt', ...Array(40).fill('clean')]);
  assert.equal(s.verdict, 'INCONCLUSIVE');
  assert.match(s.reason, /1 of 41/);
  const long = runSequential(['corrupt', ...Array(200).fill('clean')]);
  assert.equal(long.verdict, 'CLEAN');
  assert.ok(long.seen > 100);
});

test('decided state is sticky', () => {
  const t = new SequentialTest();
  t.add('corrupt');
  t.add('corrupt');
  assert.equal(t.add('clean').verdict, 'CORRUPT');
  assert.equal(t.finish().verdict, 'CORRUPT');
});

test('token rate with its bound', () => {
  const r = tokenRate(0, 1000);
  assert.equal(r.rate, 0);
  close(r.upper, 1 - Math.pow(0.05, 1 / 1000), 1e-12);
});
