import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Located } from '../core/located.js';
import { attentionConfigWithEnv, readVllmEnv } from './env-vars.js';

const at = (line: number) => ({ file: 'serve.sh', line, column: 8 });
const envOf = (vars: Record<string, string>): Map<string, Located<string>> =>
  new Map(Object.entries(vars).map(([k, v], i) => [k, { value: v, at: at(i + 1) }]));

test('VLLM_ATTENTION_BACKEND: honoured before 0.15.0, ignored from 0.15.0 on, unknown without a version', () => {
  const env = envOf({ VLLM_ATTENTION_BACKEND: 'flashinfer' });
  const old = readVllmEnv(env, '0.11.0');
  assert.equal(old.attentionEnvHonoured, 'yes');
  assert.deepEqual(old.attentionConfig.get('backend'), { value: 'FLASHINFER', at: at(1) });
  assert.match(old.notes[0].value, /overrides attention_config\.backend/);
  const dev = readVllmEnv(env, '0.23.1rc1.dev843+g04adc8843');
  assert.equal(dev.attentionEnvHonoured, 'no');
  assert.match(dev.notes[0].value, /ignores it \(removed in 0\.15\.0 by vllm-project\/vllm PR #32812\)/);
  assert.equal(readVllmEnv(env, '0.15.0').attentionEnvHonoured, 'no');
  assert.equal(readVllmEnv(env, '0.14.1').attentionEnvHonoured, 'yes');
  const unknown = readVllmEnv(env);
  assert.equal(unknown.attentionEnvHonoured, 'unknown');
  assert.match(unknown.notes[0].value, /give the vLLM version/);
});

test('value parsing follows vllm/envs.py', () => {
  const f = readVllmEnv(
    envOf({
      VLLM_USE_TRTLLM_ATTENTION: 'False',
      VLLM_FLASHINFER_DISABLE_Q_QUANTIZATION: '1',
      VLLM_DISABLE_FLASHINFER_PREFILL: 'true',
      VLLM_ATTENTION_BACKEND: 'FLASHINFER_VLLM_V1',
    }),
    '0.12.0',
  );
  assert.equal(f.attentionConfig.get('use_trtllm_attention')?.value, false);
  assert.equal(f.attentionConfig.get('disable_flashinfer_q_quantization')?.value, true);
  assert.equal(f.attentionConfig.get('disable_flashinfer_prefill')?.value, false); // only "1" counts
  assert.equal(f.attentionConfig.get('backend')?.value, 'FLASHINFER');
  assert.match(f.notes.map((n) => n.value).join('\n'), /_VLLM_V1 suffix is stripped/);
  assert.equal(
    readVllmEnv(envOf({ VLLM_USE_TRTLLM_ATTENTION: 'TRUE' }), '0.12.0').attentionConfig.get(
      'use_trtllm_attention',
    )?.value,
    true,
  );
  const bad = readVllmEnv(envOf({ VLLM_FLASHINFER_DISABLE_Q_QUANTIZATION: 'yes' }), '0.12.0');
  assert.equal(bad.attentionConfig.size, 0);
  assert.match(bad.notes[0].value, /int\(\)/);
});

test('other variables: batch invariance, cubins, KV layout, V0', () => {
  const f = readVllmEnv(
    envOf({
      VLLM_BATCH_INVARIANT: '1',
      VLLM_HAS_FLASHINFER_CUBIN: '0',
      VLLM_KV_CACHE_LAYOUT: 'HND',
      VLLM_USE_V1: '0',
      VLLM_ALLOW_LONG_MAX_MODEL_LEN: '1',
    }),
  );
  assert.equal(f.batchInvariant?.value, true);
  assert.equal(f.hasFlashinferCubin?.value, false);
  assert.equal(f.kvCacheLayout?.value, 'HND');
  assert.equal(f.useV1?.value, false);
  assert.equal(f.allowLongMaxModelLen?.value, true);
  assert.match(f.notes[0].value, /V0 engine/);
  assert.deepEqual(readVllmEnv(new Map()).notes, []);
});

test('attentionConfigWithEnv lays honoured variables over the command line', () => {
  const cli = { backend: 'TRITON_ATTN', disable_flashinfer_q_quantization: false };
  const env = envOf({ VLLM_ATTENTION_BACKEND: 'FLASHINFER' });
  assert.deepEqual(attentionConfigWithEnv(cli, readVllmEnv(env, '0.13.0')), {
    value: { backend: 'FLASHINFER', disable_flashinfer_q_quantization: false },
    fromEnv: ['backend'],
    certain: true,
  });
  assert.deepEqual(attentionConfigWithEnv(cli, readVllmEnv(env, '0.23.0')), {
    value: cli,
    fromEnv: [],
    certain: true,
  });
  assert.equal(attentionConfigWithEnv(undefined, readVllmEnv(env)).certain, false);
});
