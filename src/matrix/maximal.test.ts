import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConstraintSet } from './constraints.js';
import { maximalConfigurations } from './maximal.js';
import { configLevels } from './space.js';
import { binarySpace, forbid, implies, space } from './testing.js';

test('binary factors without constraints: one configuration, everything on', () => {
  const s = binarySpace(5);
  assert.deepEqual(maximalConfigurations(new ConstraintSet(s, []), [0, 0, 0, 0, 0]), [[1, 1, 1, 1, 1]]);
});

test('exclusive choices: one configuration per choice, each as enabled as the constraints allow', () => {
  const s = space({ fp8: ['off', 'on'], spec: ['off', 'ngram', 'mtp'], k: ['na', '3', '7'], eager: ['off', 'on'] });
  const cs = new ConstraintSet(s, [
    implies(s, { spec: 'off' }, { k: 'na' }),
    implies(s, { spec: ['ngram', 'mtp'] }, { k: ['3', '7'] }),
    forbid(s, { eager: 'on', spec: 'mtp' }),
  ]);
  const got = maximalConfigurations(cs, [0, 0, 0, 0]).map((c) => configLevels(s, c));
  assert.deepEqual(got, [
    { fp8: 'on', spec: 'ngram', k: '3', eager: 'on' },
    { fp8: 'on', spec: 'mtp', k: '7', eager: 'off' },
  ]);
});

test('a choice factor stays at its reference level; the suspects still all go on', () => {
  const s = space({ fp8: ['off', 'on'], spec: ['off', 'k3', 'k7'], drafter: ['mtp', 'ngram'], block: ['16', '32'] });
  const cs = new ConstraintSet(s, [implies(s, { spec: 'off' }, { drafter: 'mtp' })]);
  const got = maximalConfigurations(cs, [0, 0, 0, 0], [false, false, true, true]).map((c) => configLevels(s, c));
  assert.deepEqual(got, [
    { fp8: 'on', spec: 'k3', drafter: 'mtp', block: '16' },
    { fp8: 'on', spec: 'k7', drafter: 'mtp', block: '16' },
  ]);
  // the same space with every factor a suspect takes the other drafter and block size
  assert.ok(maximalConfigurations(cs, [0, 0, 0, 0]).every((c) => configLevels(s, c).drafter === 'ngram'));
});
