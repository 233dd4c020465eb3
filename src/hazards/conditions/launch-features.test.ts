/**
 * The conditions added for the 2025–2026 hazards, branch by branch: each answers met / not-met /
 * unknown from the launch, and the unknown answers say which option settles them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LayerKind } from '../../deployment/deployment.js';
import type { Condition } from '../hazard.js';
import {
  buildDeployment,
  denseFacts,
  layers,
  type BuildOptions,
} from '../../../test/helpers/hazards/deployment-builder.js';
import { attentionBackendIs } from './backend-is.js';
import { calibratedQScale, uncalibratedKvScales } from './checkpoint-scales.js';
import { cudaGraphsOn } from './cudagraphs.js';
import { flashInferOnSm12x } from './flashinfer-sm120.js';
import { gpuExactly } from './gpu-exact.js';
import { kvCacheDtypeIn } from './kv-cache.js';
import { kvConnector } from './kv-connector.js';
import { lmcacheConnectorOnPackedLayout } from './lmcache.js';
import { mambaAlignMode } from './mamba-align.js';
import { contextCanExceed } from './model.js';
import { modelTypeIs, multimodalModel } from './model-type.js';
import { ngramShortLookup } from './ngram-lookup.js';
import { v1ModelRunner } from './parallelism.js';
import { requestsUse } from './request-time.js';
import {
  breakableCudaGraphs,
  decodeContextParallel,
  envEnabled,
  rawLogprobsMode,
} from './runtime-switches.js';
import {
  cascadeAttention,
  chunkedPrefill,
  loraEnabled,
  mmProcessorCache,
  prefixCaching,
} from './serving-features.js';

const status = (c: Condition, o: BuildOptions) => c.check(buildDeployment(o)).status;
const detail = (c: Condition, o: BuildOptions) => c.check(buildDeployment(o)).detail;
const hybrid = (modelType: string) => ({
  ...denseFacts(),
  modelType,
  layers: layers(8, 4).map((k): LayerKind => (k === 'full' ? 'full' : 'linear')),
});

test('on/off features: defaults, --no- forms, inverted flags, non-booleans', () => {
  assert.equal(status(chunkedPrefill(), {}), 'met');
  assert.equal(status(chunkedPrefill(), { args: { enable_chunked_prefill: false } }), 'not-met');
  assert.equal(status(prefixCaching(), {}), 'met');
  assert.equal(status(prefixCaching({ hybrid: true }), {}), 'unknown');
  assert.equal(status(prefixCaching({ hybrid: true }), { args: { enable_prefix_caching: true } }), 'met');
  assert.equal(status(cascadeAttention(), {}), 'met');
  assert.equal(status(cascadeAttention(), { args: { disable_cascade_attn: true } }), 'not-met');
  assert.equal(status(loraEnabled(), {}), 'not-met');
  assert.equal(status(loraEnabled(), { args: { enable_lora: 'maybe' } }), 'unknown');
  assert.equal(status(mmProcessorCache(), {}), 'met');
  assert.equal(status(mmProcessorCache(), { args: { mm_processor_cache_gb: 0 } }), 'not-met');
  assert.equal(status(mmProcessorCache(), { args: { disable_mm_preprocessor_cache: true } }), 'not-met');
});

test('KV connectors: none, any, a named one, one without a name', () => {
  const lm = { kv_transfer_config: { kv_connector: 'LMCacheMPConnector', kv_role: 'kv_both' } };
  assert.equal(status(kvConnector(), {}), 'not-met');
  assert.equal(status(kvConnector(), { args: lm }), 'met');
  assert.equal(status(kvConnector({ only: ['NixlConnector'] }), { args: lm }), 'not-met');
  assert.equal(status(kvConnector(), { args: { kv_transfer_config: { kv_role: 'kv_both' } } }), 'unknown');
  const c = lmcacheConnectorOnPackedLayout();
  assert.equal(status(c, { args: { kv_transfer_config: { kv_connector: 'LMCacheConnectorV1' } } }), 'met');
  assert.equal(status(c, { args: lm, modelFacts: denseFacts() }), 'not-met');
  assert.equal(status(c, { args: lm, modelFacts: hybrid('qwen3_5') }), 'met');
  assert.equal(status(c, { args: lm }), 'unknown');
});

test('mamba_cache_mode align: explicit, by prefix caching on Qwen3.5, unknown for other hybrids and unset prefix caching', () => {
  const c = mambaAlignMode();
  assert.equal(status(c, { args: { mamba_cache_mode: 'align' } }), 'met');
  assert.equal(status(c, { args: { mamba_cache_mode: 'all' } }), 'not-met');
  assert.equal(
    status(c, { args: { enable_prefix_caching: false }, modelFacts: hybrid('qwen3_5') }),
    'not-met',
  );
  assert.equal(
    status(c, { args: { enable_prefix_caching: true }, modelFacts: hybrid('qwen3_5_moe') }),
    'met',
  );
  assert.equal(status(c, { modelFacts: hybrid('qwen3_5') }), 'unknown');
  assert.match(
    detail(c, { args: { enable_prefix_caching: true }, modelFacts: hybrid('nemotron_h') }),
    /"align" or "all"/,
  );
});

test('backends: explicit matches, explicit others, unset with and without a rule', () => {
  const c = attentionBackendIs({ name: 'triton', backends: ['TRITON_ATTN'] });
  assert.equal(status(c, { args: { attention_backend: 'TRITON_ATTN' } }), 'met');
  assert.equal(status(c, { args: { attention_backend: 'FLASH_ATTN' } }), 'not-met');
  assert.equal(status(c, {}), 'unknown');
  const fi = flashInferOnSm12x();
  assert.equal(status(fi, { args: { kv_cache_dtype: 'fp8' } }), 'met', 'FP8 KV: auto lands on FlashInfer');
  assert.equal(status(fi, { args: { kv_cache_dtype: 'bfloat16' } }), 'not-met');
  assert.equal(status(fi, {}), 'unknown', 'no model config: the KV dtype under auto is unknown');
  assert.equal(status(fi, { args: { attention_backend: 'TRITON_ATTN', kv_cache_dtype: 'fp8' } }), 'not-met');
});

test('GPU, model type, media inputs, KV dtype, context length', () => {
  const a100 = gpuExactly({ name: 'gpu-a100', sm: 80, label: 'A100', cleanOn: 'H100' });
  assert.equal(status(a100, { gpu: { sm: 80 } }), 'met');
  assert.equal(status(a100, { gpu: { sm: 86 } }), 'unknown');
  assert.equal(status(a100, { gpu: { sm: 90 } }), 'not-met');
  assert.equal(status(a100, {}), 'unknown');
  const vl = modelTypeIs({ name: 'vl', family: 'Qwen-VL', prefixes: ['qwen2_5_vl'] });
  assert.equal(status(vl, { modelFacts: { ...denseFacts(), modelType: 'qwen2_5_vl_text' } }), 'met');
  assert.equal(status(vl, { modelFacts: denseFacts() }), 'not-met');
  assert.equal(status(vl, {}), 'unknown');
  assert.equal(status(multimodalModel(), { modelFacts: { ...denseFacts(), multimodal: true } }), 'met');
  assert.equal(status(multimodalModel(), { modelFacts: { ...denseFacts(), multimodal: false } }), 'not-met');
  assert.equal(status(multimodalModel(), { modelFacts: denseFacts() }), 'unknown');
  const e5m2 = kvCacheDtypeIn({ name: 'e5m2', dtypes: ['fp8_e5m2'], label: 'E5M2' });
  assert.equal(status(e5m2, { args: { kv_cache_dtype: 'fp8_e5m2' } }), 'met');
  assert.equal(status(e5m2, { args: { kv_cache_dtype: 'fp8' } }), 'not-met');
  assert.equal(status(e5m2, {}), 'unknown');
  assert.equal(status(contextCanExceed(21000), {}), 'met');
  assert.equal(status(contextCanExceed(21000), { args: { max_model_len: 16384 } }), 'not-met');
  assert.equal(status(contextCanExceed(21000), { args: { max_model_len: 'lots' } }), 'unknown');
});

test('checkpoint scales: not inspected is unknown, never assumed 1.0', () => {
  const withScales = (q: number[] | undefined, k: number[]) => ({
    modelFacts: {
      ...denseFacts(),
      scales: { present: { q: q !== undefined, k: true, v: true }, ...(q ? { q } : {}), k, v: k },
    },
  });
  assert.equal(status(calibratedQScale(), { modelFacts: denseFacts() }), 'unknown');
  assert.equal(status(calibratedQScale(), withScales([0.03], [1])), 'met');
  assert.equal(status(calibratedQScale(), withScales([1], [1])), 'not-met');
  assert.equal(status(calibratedQScale(), withScales(undefined, [1])), 'not-met');
  assert.equal(status(uncalibratedKvScales(), withScales(undefined, [1])), 'met');
  assert.equal(status(uncalibratedKvScales(), withScales(undefined, [0.02])), 'not-met');
  assert.equal(status(uncalibratedKvScales(), {}), 'unknown');
});

test('runtime switches: DCP, breakable graphs, opt-in env, logprobs mode, V1 runner, CUDA graphs', () => {
  assert.equal(status(decodeContextParallel(), { args: { decode_context_parallel_size: 4 } }), 'met');
  assert.equal(status(decodeContextParallel(), {}), 'not-met');
  const bg = breakableCudaGraphs({ autoForModelTypes: ['deepseek_v4'] });
  assert.equal(status(bg, { modelFacts: { ...denseFacts(), modelType: 'deepseek_v4' } }), 'met');
  assert.equal(
    status(bg, {
      env: { VLLM_USE_BREAKABLE_CUDAGRAPH: '0' },
      modelFacts: { ...denseFacts(), modelType: 'deepseek_v4' },
    }),
    'not-met',
  );
  assert.equal(status(bg, { args: { enforce_eager: true } }), 'not-met');
  assert.equal(status(bg, {}), 'unknown');
  const kvc = envEnabled({ name: 'kvcached', variable: 'ENABLE_KVCACHED', what: 'kvcached' });
  assert.equal(status(kvc, { env: { ENABLE_KVCACHED: 'true' } }), 'met');
  assert.equal(status(kvc, {}), 'not-met');
  assert.equal(status(rawLogprobsMode(), {}), 'met');
  assert.equal(status(rawLogprobsMode(), { args: { logprobs_mode: 'processed_logprobs' } }), 'not-met');
  assert.equal(status(rawLogprobsMode(), { args: { logprobs_mode: 'odd' } }), 'unknown');
  assert.equal(status(v1ModelRunner(), { env: { VLLM_USE_V2_MODEL_RUNNER: '1' } }), 'not-met');
  assert.equal(status(v1ModelRunner(), {}), 'unknown');
  assert.equal(
    status(cudaGraphsOn(), { args: { compilation_config: { cudagraph_mode: 'PIECEWISE' } } }),
    'met',
  );
  assert.equal(
    status(cudaGraphsOn(), { args: { compilation_config: { cudagraph_mode: 'NONE' } } }),
    'not-met',
  );
});

test('n-gram minimum match and request-time facts', () => {
  const c = ngramShortLookup({ cleanFrom: 8 });
  const ngram = (extra: object) => ({
    args: { speculative_config: { method: 'ngram', num_speculative_tokens: 4, ...extra } },
  });
  assert.equal(status(c, ngram({ prompt_lookup_min: 2 })), 'met');
  assert.equal(status(c, ngram({ prompt_lookup_min: 8 })), 'not-met');
  assert.equal(status(c, ngram({})), 'unknown');
  assert.equal(status(c, { args: { speculative_config: { method: 'mtp' } } }), 'not-met');
  const r = requestsUse({ name: 'r', what: 'requests ask for logprobs' });
  assert.equal(status(r, {}), 'unknown');
  assert.match(detail(r, {}), /depends on the traffic/);
});
