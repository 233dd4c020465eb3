import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Deployment } from './deployment.js';
import { platformOf } from './platform.js';

function launch(
  o: {
    env?: Record<string, string>;
    args?: Record<string, unknown>;
    engine?: 'vllm' | 'sglang';
    gpu?: boolean;
  } = {},
): Deployment {
  return {
    source: { file: 'serve.sh', kind: 'shell' },
    engine: o.engine ?? 'vllm',
    args: new Map(Object.entries(o.args ?? {}).map(([k, value]) => [k, { value }])),
    env: new Map(Object.entries(o.env ?? {}).map(([k, value]) => [k, { value }])),
    versions: {},
    notes: [],
    ...(o.gpu ? { gpu: { value: { name: 'NVIDIA H100', sm: 90 } } } : {}),
  };
}
const img = (value: string) => ({ value });

test('ROCm shows itself by image, runtime variable or AMD-only backend', () => {
  assert.equal(platformOf(launch(), img('rocm/vllm:rocm6.4.1_vllm_0.10.0'))?.value, 'rocm');
  assert.equal(platformOf(launch(), img('vllm/vllm-openai-rocm:v0.14.1'))?.value, 'rocm');
  assert.equal(platformOf(launch(), img('lmsysorg/sglang:v0.5.6-rocm700-mi30x'))?.value, 'rocm');
  for (const name of [
    'HIP_VISIBLE_DEVICES',
    'ROCR_VISIBLE_DEVICES',
    'HSA_NO_SCRATCH_RECLAIM',
    'VLLM_ROCM_USE_AITER',
    'SGLANG_USE_AITER',
  ])
    assert.equal(platformOf(launch({ env: { [name]: '1' } }), undefined)?.value, 'rocm', name);
  assert.equal(
    platformOf(launch({ args: { attention_backend: 'ROCM_AITER_FA' } }), undefined)?.value,
    'rocm',
  );
  assert.equal(
    platformOf(launch({ env: { VLLM_ATTENTION_BACKEND: 'ROCM_ATTN' } }), undefined)?.value,
    'rocm',
  );
  assert.equal(
    platformOf(launch({ engine: 'sglang', args: { attention_backend: 'aiter' } }), undefined)?.value,
    'rocm',
  );
});

test('CUDA shows itself by a known NVIDIA GPU or a CUDA-only image; nothing shown is unknown', () => {
  assert.equal(platformOf(launch({ gpu: true }), img('rocm/vllm:latest'))?.value, 'cuda', 'a known GPU wins');
  assert.equal(platformOf(launch(), img('vllm/vllm-openai:v0.11.0'))?.value, 'cuda');
  assert.equal(platformOf(launch(), img('nvcr.io/nvidia/tritonserver:25.01-vllm-python-py3'))?.value, 'cuda');
  assert.equal(
    platformOf(launch({ env: { CUDA_VISIBLE_DEVICES: '0' } }), undefined),
    undefined,
    'ROCm honours CUDA_VISIBLE_DEVICES too',
  );
  assert.equal(platformOf(launch(), img('my-registry/llm-server:1.2')), undefined);
  assert.equal(
    platformOf(launch({ args: { attention_backend: 'aiter' } }), undefined),
    undefined,
    'aiter is SGLang’s name, not vLLM’s',
  );
});
