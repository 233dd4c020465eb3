import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FL012 } from './FL012-ar-rmsnorm-quant-fusion.js';
import {
  B200,
  denseFacts,
  withArgs,
  type BuildOptions,
} from '../../../test/helpers/hazards/deployment-builder.js';
import { assertFiresFully, fire } from '../../../test/helpers/hazards/fire.js';
import type { LayerKind, ModelFacts } from '../../deployment/deployment.js';

/** nvidia/Qwen3.6-27B-NVFP4 as the report describes it: Qwen3.5-family architecture, ModelOpt NVFP4. */
function qwenNvfp4Facts(): ModelFacts {
  return {
    source: 'config.json',
    modelType: 'qwen3_5',
    layers: Array.from({ length: 64 }, (_, i): LayerKind => ((i + 1) % 4 === 0 ? 'full' : 'linear')),
    quantization: {
      method: 'modelopt',
      activations: 'nvfp4',
      hasKvCacheScheme: false,
      evidence: 'hf_quant_config.json: quantization.quant_algo "NVFP4"',
    },
    notes: [],
  };
}

const base: BuildOptions = {
  model: 'nvidia/Qwen3.6-27B-NVFP4',
  args: {
    tensor_parallel_size: 2,
    compilation_config: { pass_config: { fuse_allreduce_rms: true } },
  },
  env: { VLLM_FLASHINFER_ALLREDUCE_BACKEND: 'trtllm' },
  gpu: B200,
  modelFacts: qwenNvfp4Facts(),
  versions: { vllm: '0.24.0' },
};

test('the report: Qwen3.6 NVFP4, TP 2, fuse_allreduce_rms on vLLM 0.24.0 fires FL012 at the pass config', () => {
  assert.equal(assertFiresFully(FL012, base).location.line, 3);
});

test('Gemma with static FP8 fires too', () => {
  const gemma: ModelFacts = {
    ...denseFacts(),
    modelType: 'gemma3_text',
    quantization: {
      method: 'compressed-tensors',
      activations: 'fp8-static',
      hasKvCacheScheme: false,
      evidence: 'config.json: quantization_config.quant_method "compressed-tensors"',
    },
  };
  assertFiresFully(FL012, { ...base, modelFacts: gemma });
});

test('unknowns give "possibly": pass unset, version, model config, online quantization', () => {
  const possibly = (o: BuildOptions, cond: string) => {
    const f = fire(FL012, o);
    assert.ok(f, `${cond} should still fire`);
    assert.equal(f.possibly, true);
    assert.deepEqual(
      f.conditions.filter((c) => c.status !== 'met').map((c) => c.name),
      [cond],
    );
  };
  possibly(withArgs(base, { compilation_config: undefined }), 'allreduce-rms-fusion');
  possibly({ ...base, versions: {} }, 'vllm-version');
  assertFiresFully(FL012, { ...base, versions: { vllm: '0.25.0' } });
  assert.equal(fire(FL012, { ...base, versions: { vllm: '0.25.1' } }), undefined, 'v0.25.1 ships PR #48330');
  possibly({ ...base, versions: { vllm: '0.23.0' } }, 'vllm-version');
  const bf16 = qwenNvfp4Facts();
  delete bf16.quantization;
  possibly({ ...withArgs(base, { quantization: 'fp8' }), modelFacts: bf16 }, 'static-fp8-or-nvfp4-quant');
  const noType = qwenNvfp4Facts();
  delete noType.modelType;
  possibly({ ...base, modelFacts: noType }, 'gemma-style-rmsnorm');
  const f = fire(FL012, { ...base, modelFacts: undefined });
  assert.equal(f?.possibly, true);
});

test('near misses do not fire: TP unset, Llama, weight-only or dynamic FP8, unquantized BF16', () => {
  assert.equal(fire(FL012, withArgs(base, { tensor_parallel_size: undefined })), undefined);
  assert.equal(fire(FL012, { ...base, modelFacts: { ...qwenNvfp4Facts(), modelType: 'llama' } }), undefined);
  for (const activations of ['weight-only', 'fp8-dynamic'] as const) {
    const facts = qwenNvfp4Facts();
    facts.quantization = { ...facts.quantization!, activations };
    assert.equal(fire(FL012, { ...base, modelFacts: facts }), undefined, activations);
  }
  const bf16 = qwenNvfp4Facts();
  delete bf16.quantization;
  assert.equal(fire(FL012, { ...base, modelFacts: bf16 }), undefined);
});
