import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ConstraintSet, type Constraint } from './constraints.js';
import { buildCoveringArray } from './covering.js';
import { checkCoverage } from './covering-check.js';
import { binarySpace, forbid, implies, space } from './testing.js';


test('binary strength-3 arrays reach the best-known sizes for small k (research note §1.2)', () => {
  // CAN(3,4,2)=8, CAN(3,8,2)=12 (both optimal); CAN(2,10,2)=6.
  assert.equal(buildCoveringArray(binarySpace(4), { strength: 3, shrinkSteps: 2000 }).rows.length, 8);
  assert.equal(buildCoveringArray(binarySpace(8), { strength: 3, shrinkSteps: 4000 }).rows.length, 12);
  assert.equal(buildCoveringArray(binarySpace(10), { strength: 2, shrinkSteps: 4000 }).rows.length, 6);
});

test('the same seed gives the same array; another seed may differ but is still complete', () => {
  const s = binarySpace(9);
  const a = buildCoveringArray(s, { strength: 3, seed: 7, shrinkSteps: 500 });
  const b = buildCoveringArray(s, { strength: 3, seed: 7, shrinkSteps: 500 });
  assert.deepEqual(a.rows, b.rows);
  const c = buildCoveringArray(s, { strength: 3, seed: 8, shrinkSteps: 500 });
  assert.equal(checkCoverage(s, new ConstraintSet(s, []), 3, c.rows).ok, true);
});

test('seed rows count for coverage and are not returned', () => {
  const s = binarySpace(6);
  const full = buildCoveringArray(s, { strength: 2, shrinkSteps: 0 });
  const seeded = buildCoveringArray(s, { strength: 2, seedRows: full.rows.slice(0, 3), shrinkSteps: 0 });
  const cs = new ConstraintSet(s, []);
  assert.equal(checkCoverage(s, cs, 2, [...full.rows.slice(0, 3), ...seeded.rows]).ok, true);
  for (const row of full.rows.slice(0, 3)) assert.ok(!seeded.rows.some((r) => r.join() === row.join()));
  // A complete seed set needs nothing new.
  assert.deepEqual(buildCoveringArray(s, { strength: 2, seedRows: full.rows }).rows, []);
});

test('constraints: every row valid, every valid tuple covered, invalid tuples never targeted', () => {
  const s = space({
    backend: ['flashinfer', 'triton', 'fa3'],
    fa3flag: ['na', 'on', 'off'],
    spec: ['off', 'ngram', 'mtp'],
    prefix: ['off', 'on'],
    kv: ['auto', 'fp8'],
    eager: ['no', 'yes'],
  });
  const rules: Constraint[] = [
    implies(s, { backend: 'fa3' }, { fa3flag: ['on', 'off'] }),
    implies(s, { backend: ['flashinfer', 'triton'] }, { fa3flag: 'na' }),
    implies(s, { spec: 'ngram' }, { prefix: 'on' }),
    forbid(s, { backend: 'triton', kv: 'fp8' }),
  ];
  const cs = new ConstraintSet(s, rules);
  for (const t of [2, 3]) {
    const ca = buildCoveringArray(s, { strength: t, constraints: cs, shrinkSteps: 2000 });
    const check = checkCoverage(s, cs, t, ca.rows);
    assert.equal(check.ok, true);
    assert.equal(check.validTuples, ca.validTuples);
    for (const row of ca.rows) assert.equal(cs.isValid(row), true);
  }
});

test('preferred levels fill the don\u2019t-care cells', () => {
  const s = binarySpace(3);
  const ca = buildCoveringArray(s, { strength: 1, preferredLevels: [1, 1, 1], shrinkSteps: 0 });
  assert.equal(checkCoverage(s, new ConstraintSet(s, []), 1, ca.rows).ok, true);
  assert.equal(ca.rows.length, 2);
});

test('strength above the factor count means every valid configuration', () => {
  const s = binarySpace(3);
  const ca = buildCoveringArray(s, { strength: 4 });
  assert.equal(ca.strength, 3);
  assert.equal(ca.rows.length, 8);
});

test('the checker finds holes and invalid rows that a broken array has', () => {
  const s = space({ a: ['0', '1'], b: ['0', '1'], c: ['0', '1', '2'] });
  const cs = new ConstraintSet(s, [forbid(s, { a: '1', c: '2' })]);
  const rows = [
    [0, 0, 0],
    [0, 1, 1],
    [1, 0, 1],
    [1, 1, 0],
    [0, 0, 2],
    [0, 1, 2],
  ];
  assert.equal(checkCoverage(s, cs, 2, rows).ok, true); // a=1,c=2 is invalid, so not required
  const holed = checkCoverage(s, cs, 2, rows.slice(0, 5));
  assert.equal(holed.ok, false);
  assert.deepEqual(holed.holes, [{ b: '1', c: '2' }]);
  const invalid = checkCoverage(s, cs, 2, [...rows, [1, 1, 2]]);
  assert.deepEqual(invalid.invalidRows, [6]);
});

test('property: random mixed spaces with random constraints always pass the independent check', () => {
  const arb = fc.record({
    sizes: fc.array(fc.integer({ min: 2, max: 4 }), { minLength: 3, maxLength: 7 }),
    t: fc.integer({ min: 1, max: 3 }),
    seed: fc.integer({ min: 0, max: 1000 }),
    rules: fc.array(
      fc.record({ a: fc.nat(), va: fc.nat(), b: fc.nat(), vb: fc.nat(), implies: fc.boolean() }),
      { maxLength: 3 },
    ),
  });
  fc.assert(
    fc.property(arb, ({ sizes, t, seed, rules }) => {
      const s = { names: sizes.map((_, i) => `f${i}`), levels: sizes.map((n) => Array.from({ length: n }, (_, i) => `${i}`)) };
      const constraints: Constraint[] = rules.flatMap((r) => {
        const a = r.a % sizes.length;
        const b = r.b % sizes.length;
        if (a === b) return [];
        const cond = (f: number, v: number) => ({ factor: f, allowed: s.levels[f].map((_, i) => i === v % sizes[f]) });
        return [
          r.implies
            ? { kind: 'implies' as const, when: [cond(a, r.va)], then: [cond(b, r.vb)], label: 'i' }
            : { kind: 'forbid' as const, when: [cond(a, r.va), cond(b, r.vb)], then: [], label: 'f' },
        ];
      });
      const cs = new ConstraintSet(s, constraints);
      if (!cs.canExtend(s.names.map(() => -1))) return; // unsatisfiable models are rejected at plan load
      const ca = buildCoveringArray(s, { strength: t, constraints: cs, seed, shrinkSteps: 300 });
      assert.equal(checkCoverage(s, cs, t, ca.rows).ok, true);
    }),
    { numRuns: 60 },
  );
});

test('the shrinking pass is bounded by its work budget, reports why it stopped, and is deterministic', () => {
  const s = binarySpace(12);
  const none = buildCoveringArray(s, { strength: 3, shrinkWork: 0 });
  assert.equal(none.rows.length, none.constructedRows);
  assert.equal(none.shrink.stoppedBy, 'budget');
  const small = buildCoveringArray(s, { strength: 3, shrinkWork: 200_000 });
  assert.ok(small.shrink.work <= 200_000 + 10_000, `work ${small.shrink.work}`); // one step may pass the line
  assert.equal(small.shrink.stoppedBy, 'budget');
  const full = buildCoveringArray(s, { strength: 3 });
  assert.ok(full.rows.length <= small.rows.length && small.rows.length <= none.rows.length);
  assert.equal(full.rows.length, 15, 'CAN(3,12,2) = 15, the best known');
  assert.deepEqual(buildCoveringArray(s, { strength: 3 }).rows, full.rows);
});

test('needed: only the tuples asked for are covered, and the checker agrees', () => {
  const s = binarySpace(6);
  // tuples where factor 0 is 1 only
  const needed = (p: readonly number[]) => p[0] === 1;
  const ca = buildCoveringArray(s, { strength: 3, needed, shrinkSteps: 2000 });
  const cs = new ConstraintSet(s, []);
  assert.equal(checkCoverage(s, cs, 3, ca.rows, { needed }).ok, true);
  assert.equal(checkCoverage(s, cs, 3, ca.rows).ok, false, 'tuples with factor 0 at 0 were not asked for');
  assert.ok(ca.rows.length < buildCoveringArray(s, { strength: 3, shrinkSteps: 2000 }).rows.length);
});
