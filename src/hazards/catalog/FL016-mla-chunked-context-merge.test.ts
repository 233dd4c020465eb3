import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FL016 } from './FL016-mla-chunked-context-merge.js';
import {
  B200,
  H100,
  denseFacts,
  withArgs,
  withSubArg,
  type BuildOptions,
} from '../../../test/helpers/hazards/deployment-builder.js';
import { fire } from '../../../test/helpers/hazards/fire.js';
import type { LayerKind, ModelFacts } from '../../deployment/deployment.js';

const deepseek: ModelFacts = {
  source: 'config.json',
  modelType: 'deepseek_v3',
  layers: Array<LayerKind>(61).fill('full'),
  notes: [],
};
const mla = { model: 'deepseek-ai/DeepSeek-R1', gpu: B200, modelFacts: deepseek };

/** One launch per reported path; chunked prefill and prefix caching at their defaults (on). */
const cutlass: BuildOptions = { ...mla, args: { attention_backend: 'CUTLASS_MLA' } };
const faPrefill: BuildOptions = { ...mla, args: { attention_config: { mla_prefill_backend: 'FLASH_ATTN' } } };
const widePcp: BuildOptions = {
  ...mla,
  args: { attention_config: { mla_prefill_backend: 'FLASHINFER' }, prefill_context_parallel_size: 2 },
};

function notMet(o: BuildOptions): string[] {
  const f = fire(FL016, o);
  assert.ok(f, 'FL016 should fire');
  return f.conditions.filter((c) => c.status !== 'met').map((c) => c.name);
}

test('each reported path fires, possibly: only the vLLM build (known by PR) is left to settle', () => {
  for (const [name, o, line] of [
    ['CUTLASS_MLA', cutlass, 2],
    ['FLASH_ATTN prefill', faPrefill, 2],
    ['-pcp 2', widePcp, 3],
  ] as const) {
    const f = fire(FL016, o);
    assert.ok(f, name);
    assert.equal(f.possibly, true, name);
    assert.deepEqual(notMet(o), ['vllm-version'], name);
    assert.equal(f.location.line, line, `${name}: points at the flag that picks the path`);
  }
  assert.deepEqual(notMet({ ...faPrefill, versions: { vllm: '0.26.0' } }), ['vllm-version']);
});

test('each path is cleared by moving off it: FLASHINFER MLA prefill, -pcp 1, or no chunked context', () => {
  const off = (o: BuildOptions) => fire(FL016, o) === undefined;
  assert.ok(off(withSubArg(faPrefill, 'attention_config', 'mla_prefill_backend', 'FLASHINFER')));
  assert.ok(off(withArgs(widePcp, { prefill_context_parallel_size: undefined })));
  assert.ok(
    off(withArgs(widePcp, { prefill_context_parallel_size: 1 })),
    '-pcp 1 is the same as dropping it',
  );
  for (const b of [cutlass, faPrefill, widePcp])
    assert.ok(off(withArgs(b, { enable_chunked_prefill: false, enable_prefix_caching: false })));
});

test('larger prefill chunks leave it standing; so does chunked prefill off with prefix caching on', () => {
  assert.ok(fire(FL016, withArgs(cutlass, { max_num_batched_tokens: 65536 })));
  assert.ok(
    fire(FL016, withArgs(cutlass, { enable_chunked_prefill: false })),
    'prefix-cache hits are still context',
  );
});

test('what the launch cannot show is unknown, never clean', () => {
  assert.deepEqual(notMet({ ...cutlass, modelFacts: undefined }), ['mla-model', 'vllm-version']);
  assert.match(
    fire(FL016, { ...cutlass, modelFacts: undefined })?.conditions[0]?.detail ?? '',
    /suggests an MLA model/,
  );
  // No prefill backend chosen: the record does not say which one vLLM picks.
  assert.deepEqual(notMet({ ...mla, args: {} }), ['affected-mla-prefill-path', 'vllm-version']);
  // Another GPU with no attention backend: the MLA backend vLLM picks there is not in the record.
  assert.deepEqual(
    notMet(withSubArg({ ...faPrefill, gpu: H100 }, 'attention_config', 'mla_prefill_backend', 'FLASHINFER')),
    ['affected-mla-prefill-path', 'vllm-version'],
  );
});

test('near misses do not fire: a non-MLA model, unaffected backends, no cached context', () => {
  assert.equal(fire(FL016, { ...cutlass, modelFacts: denseFacts() }), undefined);
  assert.equal(
    fire(FL016, {
      ...mla,
      args: {
        attention_backend: 'FLASHINFER_MLA',
        attention_config: { mla_prefill_backend: 'TRTLLM_RAGGED' },
      },
    }),
    undefined,
  );
  assert.equal(
    fire(FL016, withArgs(faPrefill, { enable_chunked_prefill: false, enable_prefix_caching: false })),
    undefined,
  );
});

test('an unreadable chunked-prefill flag is unknown, naming the flag', () => {
  const f = fire(FL016, withArgs(cutlass, { enable_chunked_prefill: 'maybe' }));
  assert.equal(f?.possibly, true);
  assert.match(
    f?.conditions.find((c) => c.name === 'prefill-with-context')?.detail ?? '',
    /--enable-chunked-prefill maybe is not a boolean/,
  );
});
