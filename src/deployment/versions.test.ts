import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { UserError } from '../core/errors.js';
import { compareVersions, gitCommitOf, inRange, parseVersion } from './versions.js';

// Sorted by Python's packaging.version.Version (the PEP 440 reference implementation), computed once
// with packaging on the dev machine; the list mixes the PEP 440 examples with real vLLM/flashinfer versions.
const SORTED = [
  '0.6.16.post3',
  '0.6.18rc7',
  '0.6.18',
  'v0.11.0',
  '0.11.1',
  '0.23.0',
  '0.23.1rc1.dev148',
  '0.23.1rc1.dev843+g04adc8843',
  '0.23.1rc1',
  '0.23.1',
  '0.24.0rc1',
  '0.24.0',
  '1.0.dev456',
  '1.0a1',
  '1.0a2.dev456',
  '1.0a12.dev456',
  '1.0a12',
  '1.0b1.dev456',
  '1.0b2',
  '1.0b2.post345.dev456',
  '1.0b2.post345',
  '1.0rc1.dev456',
  '1.0rc1',
  '1.0',
  '1.0+abc.5',
  '1.0+abc.7',
  '1.0+5',
  '1.0.post456.dev34',
  '1.0.post456',
  '1.0.15',
  '1.1.dev1',
  '1!0.1',
];

test('PEP 440 order matches packaging.version on the reference list', () => {
  const shuffled = [...SORTED].reverse();
  assert.deepEqual(shuffled.sort(compareVersions), SORTED);
  for (let i = 0; i < SORTED.length; i++) {
    for (let j = 0; j < SORTED.length; j++) {
      assert.equal(
        Math.sign(compareVersions(SORTED[i], SORTED[j])),
        Math.sign(i - j),
        `${SORTED[i]} vs ${SORTED[j]}`,
      );
    }
  }
});

test('equivalent spellings compare equal', () => {
  for (const [a, b] of [
    ['1.0', '1.0.0'],
    ['1.0rc1', '1.0c1'],
    ['1.0-rc.1', '1.0rc1'],
    ['1.0alpha1', '1.0a1'],
    ['1.0.post', '1.0.post0'],
    ['1.0-1', '1.0.post1'],
    ['1.0dev', '1.0.dev0'],
    ['V1.0', '1.0'],
    ['1.0rev2', '1.0.post2'],
  ]) {
    assert.equal(compareVersions(a, b), 0, `${a} = ${b}`);
  }
});

test('parsed parts of a vLLM nightly', () => {
  const v = parseVersion('0.23.1rc1.dev843+g04adc8843');
  assert.deepEqual(v, {
    text: '0.23.1rc1.dev843+g04adc8843',
    epoch: 0,
    release: [0, 23, 1],
    pre: { kind: 'rc', n: 1 },
    dev: 843,
    local: ['g04adc8843'],
  });
  assert.equal(gitCommitOf('0.23.1rc1.dev843+g04adc8843'), '04adc8843');
  assert.equal(gitCommitOf('0.23.0'), undefined);
  assert.equal(parseVersion('banana'), undefined);
  assert.equal(parseVersion('1.0+'), undefined);
});

test('inRange: comparators, dev builds, unknown versions', () => {
  assert.equal(inRange('0.23.1rc1.dev843+g04adc8843', '>=0.11.0 <0.24.0'), true);
  assert.equal(inRange('0.24.0rc1', '>=0.11.0 <0.24.0'), true); // a release candidate is not assumed fixed
  assert.equal(inRange('0.24.0', '>=0.11.0 <0.24.0'), false);
  assert.equal(inRange('0.10.2', '>=0.11.0, <0.24.0'), false);
  assert.equal(inRange('0.6.16.post3', '>0.6.12,<=0.6.16.post3'), true);
  assert.equal(inRange('0.23.0', '==0.23'), true);
  assert.equal(inRange('0.23.0', '!=0.23.0'), false);
  assert.equal(inRange(undefined, '>=0.11.0'), 'unknown');
  assert.equal(inRange('unknown', '>=0.11.0'), 'unknown');
  assert.equal(inRange('main', '>=0.11.0'), 'unknown');
  assert.throws(() => inRange('0.1', '~0.1'), UserError);
  assert.throws(() => compareVersions('0.1', 'latest'), UserError);
});

test('order is total and antisymmetric on generated versions', () => {
  const version = fc
    .tuple(
      fc.array(fc.nat(12), { minLength: 1, maxLength: 3 }),
      fc.option(fc.tuple(fc.constantFrom('a', 'b', 'rc'), fc.nat(3))),
      fc.option(fc.nat(3)),
      fc.option(fc.nat(900)),
    )
    .map(
      ([rel, pre, post, dev]) =>
        `${rel.join('.')}${pre ? pre.join('') : ''}${post === null ? '' : `.post${post}`}${dev === null ? '' : `.dev${dev}`}`,
    );
  fc.assert(
    fc.property(version, version, version, (a, b, c) => {
      assert.equal(Math.sign(compareVersions(a, b)), -Math.sign(compareVersions(b, a)));
      if (compareVersions(a, b) <= 0 && compareVersions(b, c) <= 0) assert.ok(compareVersions(a, c) <= 0);
    }),
    { seed: 3, numRuns: 500 },
  );
});
