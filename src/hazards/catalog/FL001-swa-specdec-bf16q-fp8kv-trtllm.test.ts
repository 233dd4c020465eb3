import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FL001 } from './FL001-swa-specdec-bf16q-fp8kv-trtllm.js';
import {
  B300,
  H100,
  RTX_PRO_6000,
  TEST_FILE,
  canonicalOptions,
  denseFacts,
  withArgs,
  withSubArg,
  type BuildOptions,
} from '../../../test/helpers/hazards/deployment-builder.js';
import { assertFiresFully, fire } from '../../../test/helpers/hazards/fire.js';

const base = canonicalOptions();
const spec = (k: number): BuildOptions =>
  withArgs(base, {
    speculative_config: {
      method: 'mtp',
      model: 'google/gemma-4-31B-it-assistant',
      num_speculative_tokens: k,
    },
  });

test('the #47847 launch on a B200 fires FL001 with every condition met, at the speculative-config flag', () => {
  const f = assertFiresFully(FL001, base);
  assert.deepEqual(f.location, { file: TEST_FILE, line: 5, column: 3 }); // 4th arg → line 5
  assert.equal(
    f.severity,
    'error',
    'reproduced (flashinfer#3864 controls, vllm#47847 attribution): an error',
  );
  assert.equal(FL001.confidence, 'reproduced');
  const names = f.conditions.map((c) => c.name);
  assert.deepEqual(names, [
    'sliding-window-layers',
    'context-exceeds-window',
    'gpu-sm100-family',
    'flashinfer-backend',
    'fp8-kv-cache',
    'speculative-decoding',
    'q-quantization-disabled',
    'trtllm-gen-decode',
    'vllm-version',
    'flashinfer-version',
  ]);
  const detail = (n: string) => f.conditions.find((c) => c.name === n)?.detail ?? '';
  assert.match(detail('sliding-window-layers'), /50 of 60 layers .*window 1024/);
  assert.match(detail('speculative-decoding'), /q_len_per_req = 8 > 4/);
  assert.match(detail('flashinfer-backend'), /bypasses Gemma 4/);
});

test('dropping --kv-cache-dtype keeps FL001: the finding says auto follows the checkpoint’s FP8 KV', () => {
  const f = assertFiresFully(FL001, withArgs(base, { kv_cache_dtype: undefined }));
  const kv = f.conditions.find((c) => c.name === 'fp8-kv-cache');
  assert.match(kv?.detail ?? '', /auto\) follows the checkpoint, which declares a fp8_e4m3 KV cache/);
  assert.match(kv?.detail ?? '', /hf_quant_config\.json/);
  const auto = assertFiresFully(FL001, withArgs(base, { kv_cache_dtype: 'auto' }));
  assert.match(
    auto.conditions.find((c) => c.name === 'fp8-kv-cache')?.detail ?? '',
    /--kv-cache-dtype auto follows/,
  );
});

test('num_speculative_tokens: 3 clears, 4..7 and 64 fire; unknown k is "possibly affected"', () => {
  assert.equal(fire(FL001, spec(3)), undefined);
  for (const k of [4, 5, 6, 7, 64]) assertFiresFully(FL001, spec(k));
  assert.match(fire(FL001, spec(4))?.conditions[5].detail ?? '', /5–7 were not tested/);
  const noK = fire(FL001, withArgs(base, { speculative_config: { method: 'mtp' } }));
  assert.ok(noK?.possibly);
  assert.equal(noK?.severity, 'warning');
  assert.match(noK?.message ?? '', /speculative-decoding \(method mtp, num_speculative_tokens is not set/);
  // suffix decoding without k uses max_tree_depth (24)
  assertFiresFully(FL001, withArgs(base, { speculative_config: { method: 'suffix' } }));
});

test('legacy --speculative-model/--num-speculative-tokens count as speculative decoding', () => {
  const o = withArgs(base, {
    speculative_config: undefined,
    speculative_model: 'org/draft',
    num_speculative_tokens: 7,
  });
  assertFiresFully(FL001, o);
  assert.equal(fire(FL001, withArgs(o, { num_speculative_tokens: 2 })), undefined);
});

test('GPU: H100 and RTX PRO 6000 clear it, B300 (10.3) fires, unknown GPU is possibly affected', () => {
  assert.equal(fire(FL001, { ...base, gpu: H100 }), undefined);
  assert.equal(fire(FL001, { ...base, gpu: RTX_PRO_6000 }), undefined);
  assertFiresFully(FL001, { ...base, gpu: B300 });
  const f = fire(FL001, { ...base, gpu: undefined });
  assert.ok(f?.possibly);
  assert.match(f?.message ?? '', /gpu-sm100-family \(no GPU given/);
});

test('model: no sliding layers clears it; no model config is possibly affected, never clean', () => {
  assert.equal(fire(FL001, { ...base, modelFacts: denseFacts() }), undefined);
  const f = fire(FL001, { ...base, modelFacts: undefined });
  assert.ok(f);
  assert.equal(f.severity, 'warning');
  assert.deepEqual(
    f.conditions.filter((c) => c.status === 'unknown').map((c) => c.name),
    ['sliding-window-layers', 'context-exceeds-window'],
  );
});

test('--max-model-len within the window clears it; beyond the window it fires', () => {
  assert.equal(fire(FL001, withArgs(base, { max_model_len: 1024 })), undefined);
  assertFiresFully(FL001, withArgs(base, { max_model_len: 32768 }));
});

test('backend: without --attention-backend Gemma 4 avoids FlashInfer; other models get it by default on SM100', () => {
  assert.equal(fire(FL001, withArgs(base, { attention_backend: undefined })), undefined);
  const other = { ...base, modelFacts: { ...base.modelFacts!, modelType: 'gemma3_text' } };
  assertFiresFully(FL001, withArgs(other, { attention_backend: undefined }));
  assertFiresFully(
    FL001,
    withArgs(base, {
      attention_backend: undefined,
      attention_config: { backend: 'FLASHINFER', disable_flashinfer_q_quantization: true },
    }),
  );
});

test('decode forced off trtllm-gen by batch invariance or DCP clears it; string booleans from YAML are read', () => {
  assert.equal(fire(FL001, { ...base, env: { VLLM_BATCH_INVARIANT: '1' } }), undefined);
  assert.equal(fire(FL001, withArgs(base, { decode_context_parallel_size: 2 })), undefined);
  assertFiresFully(
    FL001,
    withArgs(base, { attention_config: { disable_flashinfer_q_quantization: 'true' } }),
  );
  assert.equal(fire(FL001, withSubArg(base, 'attention_config', 'use_trtllm_attention', 'false')), undefined);
});

test('kv_cache_dtype_skip_layers=sliding_window keeps the sliding layers unquantized', () => {
  assert.equal(fire(FL001, withArgs(base, { kv_cache_dtype_skip_layers: ['sliding_window'] })), undefined);
});

test('FP8 E5M2 and NVFP4 caches are unknown (not reported), not clean', () => {
  for (const t of ['fp8_e5m2', 'nvfp4']) {
    const f = fire(FL001, withArgs(base, { kv_cache_dtype: t }));
    assert.ok(f?.possibly, t);
  }
});

test('versions: any known version is affected (no fix released); flashinfer older than the first report is unknown', () => {
  assertFiresFully(FL001, {
    ...base,
    versions: { vllm: '0.23.1rc1.dev843+g04adc8843', flashinfer: '0.6.14' },
  });
  assertFiresFully(FL001, { ...base, versions: { vllm: '0.30.0', flashinfer: '0.6.18' } });
  const old = fire(FL001, { ...base, versions: { flashinfer: '0.6.12' } });
  assert.ok(old?.possibly);
  assert.match(old?.message ?? '', /older than the first reported 0\.6\.14/);
});

test('the old attention env vars: read below vLLM 0.15.0, ignored from it on, unknown without a version', () => {
  const noFlag = withSubArg(base, 'attention_config', 'disable_flashinfer_q_quantization', undefined);
  const viaEnv = { ...noFlag, env: { VLLM_FLASHINFER_DISABLE_Q_QUANTIZATION: '1' } };
  assertFiresFully(FL001, { ...viaEnv, versions: { vllm: '0.14.1' } });
  assert.equal(fire(FL001, { ...viaEnv, versions: { vllm: '0.15.0' } }), undefined);
  const unknown = fire(FL001, viaEnv);
  assert.ok(unknown?.possibly);
  assert.match(
    unknown?.message ?? '',
    /q-quantization-disabled \(VLLM_FLASHINFER_DISABLE_Q_QUANTIZATION=1 overrides/,
  );
  // VLLM_USE_TRTLLM_ATTENTION=0 clears it where it is read, and makes an unknown version uncertain
  const offEnv = { ...base, env: { VLLM_USE_TRTLLM_ATTENTION: '0' } };
  assert.equal(fire(FL001, { ...offEnv, versions: { vllm: '0.14.0' } }), undefined);
  assert.ok(fire(FL001, offEnv)?.possibly);
  // VLLM_ATTENTION_BACKEND overrides --attention-backend in old releases only
  const envBackend = { ...base, env: { VLLM_ATTENTION_BACKEND: 'TRITON_ATTN' } };
  assert.equal(fire(FL001, { ...envBackend, versions: { vllm: '0.13.0' } }), undefined);
  const ignored = assertFiresFully(FL001, { ...envBackend, versions: { vllm: '0.16.0' } });
  assert.match(ignored.conditions[3].detail, /VLLM_ATTENTION_BACKEND=TRITON_ATTN is ignored/);
  // an env var that agrees with the command line changes nothing, version or not
  assertFiresFully(FL001, { ...base, env: { VLLM_ATTENTION_BACKEND: 'FLASHINFER' } });
});
