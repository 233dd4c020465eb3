import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deploymentFromArgv } from '../../deployment/load.js';
import { evaluateHazard } from '../evaluate.js';
import { FL000 } from './FL000-flag-not-accepted.js';

const lint = (argv: string[], vllmVersion?: string) =>
  evaluateHazard(FL000, deploymentFromArgv(['vllm', 'serve', 'org/m', ...argv], { cwd: '/', ...(vllmVersion ? { vllmVersion } : {}) }));

test('a flag of no release: possibly (version unknown), definite with a release version', () => {
  const possibly = lint(['--no-such-flag', '3']);
  assert.equal(possibly?.possibly, true);
  assert.equal(possibly?.severity, 'warning');
  assert.match(possibly?.conditions[0].detail ?? '', /--no-such-flag: unknown to faultline's flag table/);
  const definite = lint(['--no-such-flag', '3'], '0.27.1');
  assert.equal(definite?.possibly, false);
  assert.match(definite?.conditions[0].detail ?? '', /not accepted by vLLM 0\.27\.1's argument parser, so vLLM would refuse to start/);
  assert.deepEqual(definite?.location, { file: '<argv>', line: 1, column: 4 });
});

test('a flag that an older release had is named with the releases that have it', () => {
  // --disable-log-requests: the 0.8–0.16 tables have it, the 0.27 table does not.
  const f = lint(['--disable-log-requests'], '0.27.1');
  assert.match(f?.conditions[0].detail ?? '', /--disable-log-requests \(faultline's tables have it in vLLM 0\.8\.5–0\.16\.0\)/);
  assert.equal(lint(['--disable-log-requests'], '0.10.2'), undefined);
  assert.equal(lint(['--disable-log-requests']), undefined, 'version unknown: an old flag is not unknown');
});

test('an ambiguous abbreviation is refused whatever the version; a unique one is the flag', () => {
  const f = lint(['--max-num', '8']);
  assert.equal(f?.possibly, false);
  assert.match(f?.conditions[0].detail ?? '', /--max-num is an ambiguous abbreviation \(could match .*--max-num-seqs/);
  assert.equal(lint(['--max-num-seq', '8']), undefined);
  const d = deploymentFromArgv(['vllm', 'serve', 'org/m', '--max-num-seq', '8'], { cwd: '/' });
  assert.equal(d.args.get('max_num_seqs')?.value, 8);
});

test('remedy: the full option name clears it', () => {
  assert.ok(lint(['--max-num', '8']));
  assert.equal(lint(['--max-num-seqs', '8']), undefined);
});
