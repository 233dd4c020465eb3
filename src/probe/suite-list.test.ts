import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isUserError } from '../core/errors.js';
import { combineVerdicts, parseSuiteList, type SuiteVerdict } from './suite-list.js';

test('suite lists: the order written; unknown, repeated, empty or two prompt suites are usage errors', () => {
  assert.deepEqual(parseSuiteList('workload,window-crossing', '--suite'), ['workload', 'window-crossing']);
  assert.deepEqual(parseSuiteList(' short , workload', '--suite'), ['short', 'workload']);
  assert.deepEqual(parseSuiteList(['workload'], 'probe.suite'), ['workload']);
  for (const [given, pattern] of [
    ['workload,nope', /unknown suite "nope"/],
    ['workload,,short', /empty suite name/],
    ['short,short', /named twice/],
    ['short,window-crossing', /both prompt suites/],
  ] as const)
    assert.throws(() => parseSuiteList(given, '--suite'), (e: unknown) => isUserError(e) && pattern.test(e.message) && /suites: window-crossing, short, file, workload/.test(e.hint ?? ''));
});

test('one verdict from several: CORRUPT if any suite is, CLEAN only if every suite is, else INCONCLUSIVE', () => {
  const v = (suite: SuiteVerdict['suite'], verdict: SuiteVerdict['verdict']): SuiteVerdict => ({ suite, verdict, reason: `${suite} said ${verdict}` });
  assert.equal(combineVerdicts([v('workload', 'CORRUPT'), v('window-crossing', 'CLEAN')]).verdict, 'CORRUPT');
  assert.equal(combineVerdicts([v('workload', 'INCONCLUSIVE'), v('window-crossing', 'CORRUPT')]).verdict, 'CORRUPT');
  assert.equal(combineVerdicts([v('workload', 'CLEAN'), v('window-crossing', 'CLEAN')]).verdict, 'CLEAN');
  const open = combineVerdicts([v('workload', 'INCONCLUSIVE'), v('window-crossing', 'CLEAN')]);
  assert.equal(open.verdict, 'INCONCLUSIVE');
  assert.match(open.reason, /workload: workload said INCONCLUSIVE \(workload INCONCLUSIVE, window-crossing CLEAN\)/);
  assert.match(combineVerdicts([v('workload', 'CORRUPT'), v('short', 'CLEAN')]).reason, /workload found corruption \(workload CORRUPT, short CLEAN\)/);
  assert.equal(combineVerdicts([]).verdict, 'INCONCLUSIVE');
});
