import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FL014 } from './FL014-hybrid-ngram-stale-recurrent-state.js';
import {
  denseFacts,
  withArgs,
  withSubArg,
  type BuildOptions,
} from '../../../test/helpers/hazards/deployment-builder.js';
import { assertFiresFully, fire } from '../../../test/helpers/hazards/fire.js';
import type { LayerKind, ModelFacts } from '../../deployment/deployment.js';

/** A Qwen3.5-style hybrid as the report describes it: 24 GDN + 8 attention layers (3 : 1). */
const qwen35: ModelFacts = {
  source: 'config.json',
  modelType: 'qwen3_5_moe',
  layers: Array.from({ length: 32 }, (_, i): LayerKind => ((i + 1) % 4 === 0 ? 'full' : 'linear')),
  notes: [],
};
const base: BuildOptions = {
  model: 'Qwen/Qwen3.5-35B-A3B',
  args: {
    speculative_config: { method: 'ngram', num_speculative_tokens: 4, prompt_lookup_max: 4 },
    enable_prefix_caching: false,
  },
  modelFacts: qwen35,
};

test('n-gram drafting on a hybrid GDN model without prefix caching fires FL014 at --speculative-config', () => {
  const f = assertFiresFully(FL014, base);
  assert.equal(f.location.line, 2);
  assert.match(f.conditions[0].detail, /24 of 32 layers/);
  assertFiresFully(FL014, { ...base, versions: { vllm: '0.27.1' } });
  assertFiresFully(FL014, { ...base, versions: { vllm: '0.18.1rc1.dev12+gabcdef0' } });
});

test('every drafter that drafts on each step clears FL014', () => {
  for (const method of ['eagle', 'eagle3', 'qwen3_5_mtp'])
    assert.equal(fire(FL014, withSubArg(base, 'speculative_config', 'method', method)), undefined, method);
});

test('facts the launch does not settle are unknown: possibly affected', () => {
  const possibly = (o: BuildOptions) => {
    const f = fire(FL014, o);
    assert.ok(f);
    assert.equal(f.possibly, true);
    return f.conditions.filter((c) => c.status === 'unknown').map((c) => c.name);
  };
  assert.deepEqual(possibly(withArgs(base, { enable_prefix_caching: undefined })), ['mamba-cache-mode-none']);
  assert.deepEqual(possibly({ ...base, modelFacts: undefined }), ['hybrid-recurrent-model']);
  assert.deepEqual(possibly({ ...base, versions: { vllm: '0.17.1' } }), ['vllm-version']);
  for (const method of ['suffix', 'ngram_gpu', 'draft_model'])
    assert.deepEqual(possibly(withSubArg(base, 'speculative_config', 'method', method)), [
      'draft-free-steps-proposer',
    ]);
  assert.deepEqual(possibly(withSubArg(base, 'speculative_config', 'method', undefined)), [
    'draft-free-steps-proposer',
  ]);
  const allRecurrent = { ...qwen35, layers: Array<LayerKind>(8).fill('linear') };
  assert.deepEqual(possibly({ ...base, modelFacts: allRecurrent }), ['hybrid-recurrent-model']);
  assert.deepEqual(possibly(withArgs(base, { enable_prefix_caching: 'maybe' })), ['mamba-cache-mode-none']);
});

test('an explicit mamba_cache_mode is read as given', () => {
  const unset = withArgs(base, { enable_prefix_caching: undefined });
  assertFiresFully(FL014, withArgs(unset, { mamba_cache_mode: 'none' }));
  assert.equal(fire(FL014, withArgs(unset, { mamba_cache_mode: 'align' })), undefined);
  assert.equal(fire(FL014, withArgs(unset, { mamba_cache_mode: 'all' }))?.possibly, true);
});

test('near misses do not fire: a dense model, prefix caching (align mode)', () => {
  assert.equal(fire(FL014, { ...base, modelFacts: denseFacts() }), undefined);
  const f = fire(FL014, withArgs(base, { enable_prefix_caching: true }));
  assert.equal(f, undefined);
});
