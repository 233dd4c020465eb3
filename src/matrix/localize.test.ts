import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConstraintSet } from './constraints.js';
import { localizeFailure, type LocalizeEnv, type Verdict } from './localize.js';
import { configKey, configLevels, type Config } from './space.js';
import { binarySpace, implies, space } from './testing.js';

/** An oracle: fails when the configuration contains one of the faults (factor → level). */
function oracleEnv(
  cs: ConstraintSet,
  faults: Record<number, number>[],
  parallel = 1,
  unknown: (c: Config) => boolean = () => false,
): LocalizeEnv & { asked: Set<string>; rounds: number } {
  const asked = new Set<string>();
  const env = {
    constraints: cs,
    parallel,
    asked,
    rounds: 0,
    async test(configs: readonly Config[]): Promise<Verdict[]> {
      env.rounds++;
      return configs.map((c) => {
        assert.equal(cs.isValid(c), true, `localization asked for an invalid configuration ${configKey(c)}`);
        asked.add(configKey(c));
        if (unknown(c)) return 'unknown';
        return faults.some((f) => Object.entries(f).every(([k, v]) => c[Number(k)] === v)) ? 'fail' : 'pass';
      });
    },
  };
  return env;
}

const ones = (k: number) => Array.from({ length: k }, () => 1);
const zeros = (k: number) => Array.from({ length: k }, () => 0);

test('binary search finds a 3-way interaction among 12 factors within the FIC_BS bound', async () => {
  const s = binarySpace(12);
  const env = oracleEnv(new ConstraintSet(s, []), [{ 2: 1, 5: 1, 9: 1 }]);
  const result = await localizeFailure(env, ones(12), zeros(12));
  assert.equal(result.status, 'found');
  assert.equal(result.method, 'binary-search');
  assert.deepEqual(result.interaction, [{ factor: 2, level: 1 }, { factor: 5, level: 1 }, { factor: 9, level: 1 }]);
  assert.deepEqual(result.relaxations.map((r) => r.verdict), ['pass', 'pass', 'pass']);
  assert.equal(result.context, undefined); // every factor is already on in the failing row: nothing to move
  // t(⌈log2 k⌉+1)+1 = 3·5+1 = 16 for the search, plus verification; the all-ones start is not asked again.
  assert.ok(env.asked.size <= 16 + 3, `asked ${env.asked.size}`);
});

test('leave-one-out when there is a slot per factor: one parallel round, then verification', async () => {
  const s = binarySpace(8);
  const env = oracleEnv(new ConstraintSet(s, []), [{ 1: 1, 6: 1 }], 8);
  const result = await localizeFailure(env, ones(8), zeros(8));
  assert.equal(result.method, 'leave-one-out');
  assert.deepEqual(result.interaction.map((a) => a.factor), [1, 6]);
  assert.ok(env.rounds <= 4, `rounds ${env.rounds}`);
});

test('P-ary search uses parallel slots to cut rounds', async () => {
  const s = binarySpace(16);
  const serial = oracleEnv(new ConstraintSet(s, []), [{ 3: 1, 12: 1 }], 1);
  const wide = oracleEnv(new ConstraintSet(s, []), [{ 3: 1, 12: 1 }], 4);
  const a = await localizeFailure(serial, ones(16), zeros(16));
  const b = await localizeFailure(wide, ones(16), zeros(16));
  assert.deepEqual(a.interaction, b.interaction);
  assert.ok(wide.rounds < serial.rounds, `${wide.rounds} vs ${serial.rounds}`);
});

test('two faults overlapping in the failing row: one minimal interaction, verified', async () => {
  const s = binarySpace(6);
  for (const parallel of [1, 6]) {
    const env = oracleEnv(new ConstraintSet(s, []), [{ 1: 1, 2: 1 }, { 2: 1, 4: 1 }], parallel);
    const result = await localizeFailure(env, ones(6), zeros(6));
    assert.equal(result.status, 'found');
    const got = JSON.stringify(result.interaction.map((a) => a.factor));
    assert.ok(got === '[1,2]' || got === '[2,4]', got);
    assert.ok(result.relaxations.every((r) => r.verdict === 'pass'));
  }
});

test('an interaction that needs a reference level is completed by the context check', async () => {
  const s = binarySpace(8);
  // fails when f0=1 and f4=0 (f4's reference level) and f6=1
  const env = oracleEnv(new ConstraintSet(s, []), [{ 0: 1, 4: 0, 6: 1 }]);
  const failing = [1, 1, 0, 1, 0, 0, 1, 1];
  const result = await localizeFailure(env, failing, zeros(8));
  assert.equal(result.status, 'found');
  assert.deepEqual(result.interaction, [{ factor: 0, level: 1 }, { factor: 4, level: 0 }, { factor: 6, level: 1 }]);
  assert.equal(result.context?.verdict, 'pass');
});

test('the context check keeps choice factors at their reference level (a masking alternative is not a reference level taking part)', async () => {
  const s = binarySpace(8);
  // fails when f0=1 and f6=1, unless f4 — an alternative, a choice — is at its other level (it masks the fault)
  const env = oracleEnv(new ConstraintSet(s, []), [{ 0: 1, 4: 0, 6: 1 }]);
  const failing = [1, 1, 0, 1, 0, 0, 1, 1];
  const asChoice = await localizeFailure({ ...env, choices: [false, false, false, false, true, false, false, false] }, failing, zeros(8));
  assert.equal(asChoice.status, 'found');
  assert.deepEqual(asChoice.interaction, [{ factor: 0, level: 1 }, { factor: 6, level: 1 }]);
  assert.equal(asChoice.context?.config[4], 0, 'the choice stayed at its reference level');
  assert.equal(asChoice.context?.verdict, 'fail');
});

test('constraint-aware: relaxing a factor moves its dependants; the seed-shaped interaction is exact', async () => {
  const s = space({
    fp8: ['off', 'on'],
    spec: ['off', 'ngram', 'mtp'],
    k: ['na', '3', '7'],
    qq: ['on', 'disabled'],
    eager: ['off', 'on'],
    prefix: ['off', 'on'],
  });
  const cs = new ConstraintSet(s, [implies(s, { spec: 'off' }, { k: 'na' }), implies(s, { spec: ['ngram', 'mtp'] }, { k: ['3', '7'] })]);
  // spec-as-decode with q_len_per_req > 4: any drafter with k = 7
  const faults = [1, 2].map((spec) => ({ 0: 1, 1: spec, 2: 2, 3: 1 }));
  for (const parallel of [1, 6]) {
    const env = oracleEnv(cs, faults, parallel);
    const result = await localizeFailure(env, [1, 2, 2, 1, 1, 1], [0, 0, 0, 0, 0, 0]);
    assert.equal(result.status, 'found');
    // Any drafter fails with k = 7: the interaction is {fp8, k=7, qq}; k=7 forces some drafter on.
    assert.deepEqual(configLevels(s, result.minimal as number[]), { fp8: 'on', spec: 'ngram', k: '7', qq: 'disabled', eager: 'off', prefix: 'off' });
    assert.deepEqual(result.interaction.map((a) => `${s.names[a.factor]}=${s.levels[a.factor][a.level]}`), ['fp8=on', 'k=7', 'qq=disabled']);
    assert.deepEqual(result.forced.map((a) => `${s.names[a.factor]}=${s.levels[a.factor][a.level]}`), ['spec=ngram']);
    // k relaxed two ways: back to "na" (spec follows to off), and alone to 3 with the drafter kept on; both pass
    const kRelax = result.relaxations.filter((r) => s.names[r.factor] === 'k').map((r) => configLevels(s, r.config));
    assert.deepEqual(kRelax.map((l) => `${l.spec}/${l.k}`), ['off/na', 'ngram/3']);
    assert.ok(result.relaxations.every((r) => r.verdict === 'pass'));
  }
});

test('no verdict (launch or probe problem) makes the localization inconclusive, not a guess', async () => {
  const s = binarySpace(6);
  const env = oracleEnv(new ConstraintSet(s, []), [{ 0: 1, 5: 1 }], 1, (c) => c[0] === 1 && c[1] === 0 && c[5] === 1);
  const result = await localizeFailure(env, ones(6), zeros(6));
  assert.equal(result.status, 'inconclusive');
  assert.match(result.reason ?? '', /no verdict/);
  assert.deepEqual(result.interaction, []);
});

test('a failing configuration equal to the reference is inconclusive (the reference does not reproduce)', async () => {
  const s = binarySpace(3);
  const env = oracleEnv(new ConstraintSet(s, []), [{}]);
  const result = await localizeFailure(env, zeros(3), zeros(3));
  assert.equal(result.status, 'inconclusive');
  assert.match(result.reason ?? '', /equals its background/);
});
