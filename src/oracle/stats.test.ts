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

test("SPRT boundaries: the research notes' worked example for the two-class test", () => {
  const b = sprtBounds({ ...DEFAULT_SEQUENTIAL, p1: 0.05, decisiveP0: undefined, decisiveP1: undefined });
  close(b.upper, 4.55, 0.005);
  close(b.lower, -2.99, 0.005);
  close(b.perCorrupt, 2.3, 0.005);
  close(b.perDecisive, 2.3, 0.005);
  close(b.perClean, -0.046, 0.0005);
});

test('evidence classes: a decisive request weighs ×100, a weak one ×11.1, a clean one ×0.905', () => {
  const b = sprtBounds(DEFAULT_SEQUENTIAL);
  close(Math.exp(b.perDecisive), 100, 1e-9);
  close(Math.exp(b.perCorrupt), 0.05 / 0.0045, 1e-9);
  close(Math.exp(b.perClean), 0.9 / 0.995, 1e-12);
  assert.ok(b.perDecisive >= b.upper, 'one decisive request reaches the CORRUPT boundary');
  assert.ok(b.perCorrupt < b.upper && 2 * b.perCorrupt >= b.upper, 'weak evidence needs two');
});

test('false-alarm bound: under the benign rates at their H0 bounds every factor has mean exactly 1', () => {
  const p = DEFAULT_SEQUENTIAL;
  const b = sprtBounds(p);
  const q = { clean: 1 - p.p0, weak: p.p0 - p.decisiveP0!, decisive: p.decisiveP0! };
  const mean =
    q.clean * Math.exp(b.perClean) + q.weak * Math.exp(b.perCorrupt) + q.decisive * Math.exp(b.perDecisive);
  close(mean, 1, 1e-12);
  // any benign server within the bounds moves mass towards clean, where the factor is smallest
  const lighter =
    0.999 * Math.exp(b.perClean) + 0.00095 * Math.exp(b.perCorrupt) + 0.00005 * Math.exp(b.perDecisive);
  assert.ok(lighter < 1);
});

test('a decisive request alone decides CORRUPT; a weak one alone does not', () => {
  const s = runSequential(['decisive', 'clean']);
  assert.equal(s.verdict, 'CORRUPT');
  assert.equal(s.seen, 1);
  assert.equal(s.decisive, 1);
  assert.match(s.reason, /1 with decisive evidence/);
  const weak = runSequential(['corrupt', ...Array(28).fill('clean')]);
  assert.equal(weak.verdict, 'INCONCLUSIVE');
  assert.equal(weak.decisive, 0);
});

test('after clean requests a decisive one needs support: the bound holds wherever the run stops', () => {
  const s = runSequential([...Array<RequestOutcome>(5).fill('clean'), 'decisive', 'clean']);
  assert.equal(s.verdict, 'INCONCLUSIVE');
  const more = runSequential([...Array<RequestOutcome>(5).fill('clean'), 'decisive', 'corrupt']);
  assert.equal(more.verdict, 'CORRUPT');
  assert.equal(more.seen, 7);
});

test('policies whose factors do not grow with the evidence are refused', () => {
  assert.throws(() => new SequentialTest({ ...DEFAULT_SEQUENTIAL, decisiveP1: undefined }), /both/);
  assert.throws(
    () => new SequentialTest({ ...DEFAULT_SEQUENTIAL, decisiveP0: 0.004, decisiveP1: 0.005 }),
    /grow/,
  );
  assert.throws(() => new SequentialTest({ ...DEFAULT_SEQUENTIAL, decisiveP0: 0.006 }), /decisiveP0 < p0/);
});

test('two corrupt requests decide CORRUPT, with up to two clean ones between them', () => {
  const s = runSequential(['corrupt', 'corrupt', 'clean']);
  assert.equal(s.verdict, 'CORRUPT');
  assert.equal(s.seen, 2, 'stops as soon as it decides');
  assert.equal(runSequential(['corrupt', 'clean', 'clean', 'corrupt']).verdict, 'CORRUPT');
  assert.equal(runSequential(['corrupt', 'clean', 'clean', 'clean', 'corrupt']).verdict, 'INCONCLUSIVE');
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
  // the SPRT must accept H0 too: ln(11.1) + n · ln(0.905) ≤ ln(0.05 / 0.99) takes 54 clean requests
  assert.equal(long.seen, 55);
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
