import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FL015 } from './FL015-noncg-wrapper-captured-in-graph.js';
import {
  B200,
  B300,
  H100,
  RTX_PRO_6000,
  denseFacts,
  withArgs,
  withSubArg,
  type BuildOptions,
} from '../../../test/helpers/hazards/deployment-builder.js';
import { fire } from '../../../test/helpers/hazards/fire.js';

/** The reported shape: B300, FlashInfer, speculative decoding, default (FULL_AND_PIECEWISE) graphs. */
const base: BuildOptions = {
  model: 'deepseek-ai/DeepSeek-V3',
  args: {
    attention_backend: 'FLASHINFER',
    speculative_config: { method: 'eagle3', model: 'org/drafter', num_speculative_tokens: 3 },
  },
  gpu: B300,
  modelFacts: denseFacts(),
};

function notMet(o: BuildOptions): string[] {
  const f = fire(FL015, o);
  assert.ok(f, 'FL015 should fire');
  return f.conditions.filter((c) => c.status !== 'met').map((c) => c.name);
}

test('the reported launch is possibly affected, and only the vLLM build is left to settle', () => {
  const f = fire(FL015, base);
  assert.ok(f);
  assert.equal(f.possibly, true);
  assert.deepEqual(notMet(base), ['vllm-version']);
  assert.equal(f.location.line, 3, 'points at --speculative-config');
  assert.match(f.conditions.find((c) => c.name === 'vllm-version')?.detail ?? '', /PR #48167/);
  // A version number does not settle it: which releases carry the fix is not established.
  assert.deepEqual(notMet({ ...base, versions: { vllm: '0.27.1' } }), ['vllm-version']);
});

test('B200 (same family) and an unset backend (FlashInfer is the SM100 default) fire the same way', () => {
  assert.deepEqual(notMet({ ...base, gpu: B200 }), ['vllm-version']);
  assert.deepEqual(notMet(withArgs(base, { attention_backend: undefined })), ['vllm-version']);
  assert.deepEqual(notMet(withSubArg(base, 'compilation_config', 'cudagraph_mode', 'FULL')), [
    'vllm-version',
  ]);
});

test('an unknown GPU or an SM12x Blackwell is unknown, never clean', () => {
  assert.deepEqual(notMet({ ...base, gpu: undefined }), ['gpu-blackwell', 'vllm-version']);
  assert.deepEqual(notMet({ ...base, gpu: RTX_PRO_6000 }), ['gpu-blackwell', 'vllm-version']);
  assert.match(fire(FL015, { ...base, gpu: RTX_PRO_6000 })?.conditions[0]?.detail ?? '', /not established/);
});

test('near misses do not fire: Hopper, another backend, no speculative decoding', () => {
  assert.equal(fire(FL015, { ...base, gpu: H100 }), undefined);
  assert.equal(fire(FL015, withArgs(base, { attention_backend: 'TRITON_ATTN' })), undefined);
  assert.equal(fire(FL015, withArgs(base, { speculative_config: undefined })), undefined);
  assert.equal(fire(FL015, withSubArg(base, 'compilation_config', 'cudagraph_mode', 'NONE')), undefined);
});
