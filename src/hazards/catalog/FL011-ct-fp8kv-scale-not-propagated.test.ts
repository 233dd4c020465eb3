import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FL011 } from './FL011-ct-fp8kv-scale-not-propagated.js';
import {
  B200,
  H100,
  denseFacts,
  gemma4NvfpFacts,
  withArgs,
  type BuildOptions,
} from '../../../test/helpers/hazards/deployment-builder.js';
import { assertFiresFully, fire } from '../../../test/helpers/hazards/fire.js';
import type { ModelFacts } from '../../deployment/deployment.js';

const L40S = { name: 'NVIDIA L40S', sm: 89 };

/** An llm-compressor FP8 checkpoint with an FP8 kv_cache_scheme and calibrated (≠ 1) k/v scales. */
function ctFp8KvFacts(): ModelFacts {
  return {
    ...denseFacts(),
    kvDtypeFromCheckpoint: 'fp8_e4m3',
    kvDtypeEvidence: 'config.json: quantization_config.kv_cache_scheme {…} (compressed-tensors)',
    quantization: {
      method: 'compressed-tensors',
      activations: 'fp8-static',
      hasKvCacheScheme: true,
      evidence: 'config.json: quantization_config.quant_method "compressed-tensors"',
    },
    scales: {
      present: { q: false, k: true, v: true },
      k: Array<number>(32).fill(0.0213),
      v: Array<number>(32).fill(0.0087),
    },
  };
}

const base: BuildOptions = {
  args: { attention_backend: 'FLASHINFER', tensor_parallel_size: 8 },
  gpu: L40S,
  modelFacts: ctFp8KvFacts(),
  versions: { vllm: '0.19.0' },
};

test('the report: compressed-tensors FP8 KV on FlashInfer, vLLM 0.19.0, fires FL011 at the backend flag', () => {
  assert.equal(assertFiresFully(FL011, base).location.line, 2);
});

test('the other float-scale backends fire; an explicit FP8 --kv-cache-dtype changes nothing', () => {
  for (const b of ['FLASHINFER_MLA', 'FLASHINFER_MLA_SPARSE', 'ROCM_AITER_UNIFIED_ATTN'])
    assertFiresFully(FL011, withArgs(base, { attention_backend: b }));
  assertFiresFully(FL011, withArgs(base, { kv_cache_dtype: 'fp8' }));
  assertFiresFully(FL011, withArgs(base, { kv_cache_dtype: 'auto' }));
});

test('unknowns give "possibly": version, scales, model config, auto backend off SM100, explicit bf16 KV', () => {
  const possibly = (o: BuildOptions, cond: string) => {
    const f = fire(FL011, o);
    assert.ok(f, `${cond} should still fire`);
    assert.equal(f.possibly, true);
    assert.deepEqual(
      f.conditions.filter((c) => c.status !== 'met').map((c) => c.name),
      [cond],
    );
  };
  possibly({ ...base, versions: {} }, 'vllm-version');
  possibly({ ...base, versions: { vllm: '0.20.0' } }, 'vllm-version');
  possibly({ ...base, versions: { vllm: '0.18.0' } }, 'vllm-version');
  const noScales = ctFp8KvFacts();
  delete noScales.scales;
  possibly({ ...base, modelFacts: noScales }, 'checkpoint-kv-scales-not-one');
  const f = fire(FL011, { ...base, modelFacts: undefined });
  assert.equal(f?.possibly, true);
  possibly(withArgs(base, { attention_backend: undefined }), 'float-scale-backend');
  possibly({ ...withArgs(base, { attention_backend: undefined }), gpu: undefined }, 'float-scale-backend');
  possibly(withArgs(base, { attention_backend: 'CUTLASS_MLA' }), 'float-scale-backend');
  possibly(withArgs(base, { kv_cache_dtype: 'bfloat16' }), 'compressed-tensors-fp8-kv');
});

test('near misses do not fire: ModelOpt FP8 KV, scales all 1.0, no kv_cache_scheme, Gemma 4 under auto on SM100', () => {
  const modelOpt = { ...gemma4NvfpFacts(), scales: ctFp8KvFacts().scales };
  assert.equal(fire(FL011, { ...base, modelFacts: modelOpt }), undefined);
  const ones = ctFp8KvFacts();
  ones.scales = { present: { q: false, k: true, v: true }, k: [1, 1], v: [1, 1] };
  assert.equal(fire(FL011, { ...base, modelFacts: ones }), undefined);
  assert.equal(fire(FL011, { ...base, modelFacts: denseFacts() }), undefined);
  // With no backend given, SM100 picks FlashInfer (fires) — except for Gemma 4, which gets TRITON_ATTN.
  assertFiresFully(FL011, { ...withArgs(base, { attention_backend: undefined }), gpu: B200 });
  const gemma4Ct = { ...ctFp8KvFacts(), modelType: 'gemma4_text' };
  assert.equal(
    fire(FL011, { ...withArgs(base, { attention_backend: undefined }), gpu: B200, modelFacts: gemma4Ct }),
    undefined,
  );
  assert.equal(fire(FL011, { ...withArgs(base, { attention_backend: 'FLASH_ATTN' }), gpu: H100 }), undefined);
});
