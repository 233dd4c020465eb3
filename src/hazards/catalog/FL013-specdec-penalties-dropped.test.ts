import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FL013 } from './FL013-specdec-penalties-dropped.js';
import { withArgs, withSubArg, type BuildOptions } from '../../../test/helpers/hazards/deployment-builder.js';
import { fire } from '../../../test/helpers/hazards/fire.js';

/** EAGLE drafting with a server-wide repetition penalty, as --override-generation-config sets it. */
const base: BuildOptions = {
  model: 'meta-llama/Llama-3.1-8B-Instruct',
  args: {
    speculative_config: {
      method: 'eagle',
      model: 'yuhuili/EAGLE-LLaMA3.1-Instruct-8B',
      num_speculative_tokens: 3,
    },
    override_generation_config: { repetition_penalty: 1.05 },
  },
};

function unknownNames(o: BuildOptions): string[] | undefined {
  return fire(FL013, o)
    ?.conditions.filter((c) => c.status !== 'met')
    .map((c) => c.name);
}

test('EAGLE + a penalty default from --override-generation-config: every launch condition met, only the build is unknown', () => {
  const f = fire(FL013, base);
  assert.ok(f);
  assert.equal(f.possibly, true);
  assert.equal(f.severity, 'warning');
  assert.deepEqual(unknownNames(base), ['vllm-version']);
  assert.equal(f.location.line, 2, 'points at --speculative-config');
  assert.match(f.conditions[1].detail, /repetition_penalty=1\.05/);
});

test('vLLM 0.23.1 and later contain the fix (cut after PR #19482 and PR #30495 merged); earlier versions stay possibly affected', () => {
  assert.equal(fire(FL013, { ...base, versions: { vllm: '0.28.0' } }), undefined);
  assert.equal(fire(FL013, { ...base, versions: { vllm: '0.23.1' } }), undefined);
  const f = fire(FL013, { ...base, versions: { vllm: '0.12.0' } });
  assert.equal(f?.possibly, true);
  assert.match(f.conditions[2].detail, /PR #19482/);
});

test('penalties that only requests or generation_config.json could set are unknown, never clean', () => {
  const noOverride = withArgs(base, { override_generation_config: undefined });
  assert.deepEqual(unknownNames(noOverride), ['sampling-penalties', 'vllm-version']);
  assert.match(fire(FL013, noOverride)?.conditions[1].detail ?? '', /generation_config\.json/);
  const vllmDefaults = withArgs(noOverride, { generation_config: 'vllm' });
  assert.match(
    fire(FL013, vllmDefaults)?.conditions[1].detail ?? '',
    /--generation-config vllm: the model’s generation_config\.json defaults are not applied/,
    '--generation-config vllm does not settle it: requests can still set penalties',
  );
  const neutral = withSubArg(base, 'override_generation_config', 'repetition_penalty', 1);
  assert.deepEqual(unknownNames(neutral), ['sampling-penalties', 'vllm-version']);
  const temperatureOnly = withArgs(base, { override_generation_config: { temperature: 0.7 } });
  assert.deepEqual(unknownNames(temperatureOnly), ['sampling-penalties', 'vllm-version']);
});

test('penalties from a JSON string, frequency and presence too, and any drafter count', () => {
  for (const ov of ['{"frequency_penalty": 0.5}', { presence_penalty: '-1.5' }]) {
    const o = withArgs(base, { override_generation_config: ov });
    assert.deepEqual(unknownNames(o), ['vllm-version'], JSON.stringify(ov));
  }
  for (const method of ['ngram', 'mtp', 'suffix'])
    assert.deepEqual(unknownNames(withSubArg(base, 'speculative_config', 'method', method)), [
      'vllm-version',
    ]);
  assert.deepEqual(unknownNames(withArgs(base, { override_generation_config: 'not json' })), [
    'sampling-penalties',
    'vllm-version',
  ]);
});

test('near miss: penalties without speculative decoding do not fire', () => {
  assert.equal(fire(FL013, withArgs(base, { speculative_config: undefined })), undefined);
  assert.equal(
    fire(FL013, { model: 'm', args: { override_generation_config: { frequency_penalty: 2 } } }),
    undefined,
  );
});
