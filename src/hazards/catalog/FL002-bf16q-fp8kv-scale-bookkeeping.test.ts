import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FL002 } from './FL002-bf16q-fp8kv-scale-bookkeeping.js';
import {
  H100,
  canonicalOptions,
  gemma4NvfpFacts,
  withArgs,
  withSubArg,
  type BuildOptions,
} from '../../../test/helpers/hazards/deployment-builder.js';
import { assertFiresFully, fire } from '../../../test/helpers/hazards/fire.js';
import type { ModelFacts } from '../../deployment/deployment.js';

const n = 60;
const scaled = (q: number, k: number, v: number): ModelFacts => ({
  ...gemma4NvfpFacts(),
  scales: {
    present: { q: true, k: true, v: true },
    q: Array(n).fill(q),
    k: Array(n).fill(k),
    v: Array(n).fill(v),
  },
});
const base: BuildOptions = { ...canonicalOptions(), modelFacts: scaled(0.0277, 0.05, 0.04) };

test('BF16 query + FP8 cache + checkpoint q_scale ≠ 1 fires FL002, pointing at the Q-quantization flag', () => {
  const f = assertFiresFully(FL002, base);
  assert.equal(f.location.line, 4); // attention_config is the 3rd arg
  assert.match(
    f.conditions.find((c) => c.name === 'checkpoint-scales-not-one')?.detail ?? '',
    /60 of 60 layers carry q_scale ≠ 1 \(e\.g\. 0\.02770\)/,
  );
});

test('unknown scales (no checkpoint inspected) are "unknown", never "met"', () => {
  const f = fire(FL002, canonicalOptions()); // gemma4 facts without scales
  assert.ok(f);
  assert.equal(f.possibly, true);
  assert.equal(f.severity, 'warning');
  assert.equal(f.conditions.find((c) => c.name === 'checkpoint-scales-not-one')?.status, 'unknown');
});

test('all scales 1.0, or no scale tensors at all, clear it', () => {
  assert.equal(fire(FL002, { ...base, modelFacts: scaled(1, 1, 1) }), undefined);
  const none = { ...gemma4NvfpFacts(), scales: { present: { q: false, k: false, v: false } } };
  assert.equal(fire(FL002, { ...base, modelFacts: none }), undefined);
});

test('k/v scales ≠ 1 alone need forced trtllm-gen prefill on SM100 (applied twice)', () => {
  const kvOnly = { ...base, modelFacts: scaled(1, 0.05, 0.04) };
  assert.equal(fire(FL002, kvOnly), undefined, 'auto prefill goes to the native wrapper');
  const forced = withSubArg(kvOnly, 'attention_config', 'use_trtllm_attention', true);
  const f = assertFiresFully(FL002, forced);
  assert.match(f.conditions[3].detail, /applies them twice/);
  assertFiresFully(FL002, withArgs(kvOnly, { block_size: 128 }));
  assert.equal(
    fire(FL002, { ...forced, gpu: H100, args: { ...forced.args } }),
    undefined,
    'no trtllm-gen prefill on SM90',
  );
});

test('q_scale tensors present but unread are unknown', () => {
  const facts = { ...gemma4NvfpFacts(), scales: { present: { q: true, k: false, v: false } } };
  assert.equal(fire(FL002, { ...base, modelFacts: facts })?.possibly, true);
});
