import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ConstraintSet, findConstraintProblems, type Constraint } from './constraints.js';
import { UNSET } from './space.js';
import { allConfigs, forbid, implies, space } from './testing.js';

const serving = space({
  backend: ['flashinfer', 'triton', 'fa3'],
  fa3flag: ['na', 'on', 'off'],
  spec: ['off', 'ngram'],
  prefix: ['off', 'on'],
});
// PICT's "parameter exists only with one value of another" pattern, both directions.
const servingRules = [
  implies(serving, { backend: 'fa3' }, { fa3flag: ['on', 'off'] }),
  implies(serving, { backend: ['flashinfer', 'triton'] }, { fa3flag: 'na' }),
  implies(serving, { spec: 'ngram' }, { prefix: 'on' }),
];

test('complete configurations: valid exactly when every rule holds', () => {
  const cs = new ConstraintSet(serving, servingRules);
  assert.equal(cs.isValid([2, 1, 1, 1]), true);
  assert.equal(cs.isValid([0, 1, 0, 0]), false); // fa3flag set without fa3
  assert.equal(cs.isValid([0, 0, 1, 0]), false); // ngram without prefix caching
  // 2 non-fa3 backends × 1 flag + fa3 × 2 flags = 4; spec/prefix: 3 of 4 → 12
  assert.equal(cs.countValid(), 12);
});

test('partial configurations: unknown until decided, and canExtend is exact', () => {
  const cs = new ConstraintSet(serving, servingRules);
  const p = [UNSET, 1, UNSET, UNSET];
  assert.equal(cs.violates(p), false);
  assert.equal(cs.canExtend(p), true); // backend=fa3 completes it
  assert.equal(cs.canExtend([0, 1, UNSET, UNSET]), false);
  assert.equal(cs.canExtend([UNSET, UNSET, 1, 0]), false);
});

test('complete() returns the cheapest valid completion, keeping what is set', () => {
  const cs = new ConstraintSet(serving, servingRules);
  // prefer level 0 everywhere, but spec is pinned to ngram: prefix must turn on.
  const c = cs.complete([UNSET, UNSET, 1, UNSET], (_f, v) => (v === 0 ? 0 : 1));
  assert.deepEqual(c, [0, 0, 1, 1]);
  assert.equal(cs.complete([0, 1, UNSET, UNSET], () => 0), undefined);
});

test('unsatisfiable constraints name the first constraint that empties the space', () => {
  const s = space({ a: ['0', '1'], b: ['0', '1'] });
  const rules = [implies(s, { a: '0' }, { b: '1' }), forbid(s, { b: '1' }), implies(s, { a: '1' }, { b: '1' })];
  const problems = findConstraintProblems(s, rules);
  assert.equal(problems.length, 1);
  assert.equal(problems[0].kind, 'unsatisfiable');
  assert.equal(problems[0].culprit, rules[2]);
});

test('a level that no valid configuration can use is reported with its culprit', () => {
  const s = space({ a: ['0', '1'], b: ['0', '1', '2'] });
  const rules = [forbid(s, { b: '2', a: '0' }), forbid(s, { b: '2', a: '1' })];
  const problems = findConstraintProblems(s, rules);
  assert.deepEqual(
    problems.map((p) => (p.kind === 'dead-level' ? [p.factor, p.level, rules.indexOf(p.culprit)] : p.kind)),
    [[1, 2, 1]],
  );
});

// Random small spaces and rules: canExtend and countValid agree with brute-force enumeration.
const arbModel = fc
  .array(fc.integer({ min: 2, max: 3 }), { minLength: 2, maxLength: 5 })
  .chain((sizes) => {
    const cond = fc
      .tuple(fc.integer({ min: 0, max: sizes.length - 1 }), fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }))
      .map(([factor, bits]) => ({ factor, allowed: bits.slice(0, sizes[factor]) }));
    const rule = fc.record({
      kind: fc.constantFrom<'forbid' | 'implies'>('forbid', 'implies'),
      when: fc.array(cond, { minLength: 1, maxLength: 2 }),
      then: fc.array(cond, { minLength: 1, maxLength: 2 }),
    });
    return fc.tuple(fc.constant(sizes), fc.array(rule, { maxLength: 4 }));
  });

test('property: canExtend and countValid match brute force', () => {
  fc.assert(
    fc.property(arbModel, fc.array(fc.integer({ min: -1, max: 2 }), { minLength: 5, maxLength: 5 }), ([sizes, raw], pick) => {
      const s = { names: sizes.map((_, i) => `f${i}`), levels: sizes.map((n) => Array.from({ length: n }, (_, i) => `${i}`)) };
      const rules: Constraint[] = raw.map((r) => ({ ...r, then: r.kind === 'forbid' ? [] : r.then, label: 'r' }));
      const cs = new ConstraintSet(s, rules);
      const valid = [...allConfigs(s)].filter((c) => cs.isValid(c));
      assert.equal(cs.countValid(), valid.length);
      const partial = sizes.map((n, f) => (pick[f] >= n ? UNSET : pick[f]));
      const expected = valid.some((c) => c.every((v, f) => partial[f] === UNSET || partial[f] === v));
      assert.equal(cs.canExtend(partial), expected);
      const completed = cs.complete(partial, (f, v) => (v + f) % 3);
      assert.equal(completed !== undefined, expected);
      if (completed) {
        assert.equal(cs.isValid(completed), true);
        const price = (c: number[]) => c.reduce((n, v, f) => n + (partial[f] === UNSET ? (v + f) % 3 : 0), 0);
        const consistent = valid.filter((c) => c.every((v, f) => partial[f] === UNSET || partial[f] === v));
        assert.equal(price(completed), Math.min(...consistent.map(price)));
      }
    }),
    { numRuns: 300 },
  );
});
