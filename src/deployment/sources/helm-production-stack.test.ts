import assert from 'node:assert/strict';
import { test } from 'node:test';
import { collectLaunches } from './collect.js';
import { envObject, fixture, memoryFile, texts, where } from './testing.js';

test('16: the chart command with vllmConfig flags in chart order, extraArgs, v0 → VLLM_USE_V1=0', () => {
  const [l] = collectLaunches([fixture('16-helm-production-stack-v100-tp2.yaml')]).launches;
  assert.deepEqual(texts(l), [
    'vllm', 'serve', 'Qwen/Qwen2.5-7B-Instruct', '--host', '0.0.0.0', '--port', '8000', '--no-enable-prefix-caching',
    '--max-model-len', '8192', '--dtype', 'half', '--tensor-parallel-size', '2', '--gpu_memory_utilization', '0.9',
    '--enforce-eager',
  ]);
  assert.equal(where(l, 'Qwen/Qwen2.5-7B-Instruct'), '27:15');
  assert.equal(where(l, '--tensor-parallel-size'), '46:7');
  assert.equal(where(l, '--enforce-eager'), '51:11');
  assert.deepEqual(envObject(l), { PYTHONHASHSEED: '123', HF_HOME: '/data', VLLM_USE_V1: '0', VLLM_ENABLE_CUDA_COMPATIBILITY: '1' });
  assert.equal(l.image?.value, 'vllm/vllm-openai:v0.8.5');
  assert.deepEqual(l.gpuHints, [], 'the hostname selector names no GPU model');
});

test('17: lmcache repository uses /opt/venv/bin/vllm; prefix caching on; kv-transfer-config; LMCache env', () => {
  const [l, ...rest] = collectLaunches([fixture('17-helm-production-stack-lmcache.yaml')]).launches;
  assert.equal(rest.length, 0);
  assert.deepEqual(texts(l), [
    '/opt/venv/bin/vllm', 'serve', 'meta-llama/Llama-3.1-8B-Instruct', '--host', '0.0.0.0', '--port', '8000',
    '--enable-prefix-caching', '--max-model-len', '4096', '--dtype', 'bfloat16', '--gpu-memory-utilization', '0.8',
    '--kv-transfer-config', '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}',
  ]);
  assert.deepEqual(envObject(l), {
    PYTHONHASHSEED: '123', HF_HOME: '/data', PROMETHEUS_MULTIPROC_DIR: '/tmp', LMCACHE_USE_EXPERIMENTAL: 'True',
    VLLM_RPC_TIMEOUT: '1000000', LMCACHE_LOG_LEVEL: 'INFO', LMCACHE_LOCAL_CPU: 'True', LMCACHE_MAX_LOCAL_CPU_SIZE: '20',
    LMCACHE_REMOTE_URL: 'lm://<release>-cache-server-service:81', LMCACHE_REMOTE_SERDE: 'naive',
  });
});

test('several modelSpecs, a disabled one skipped, GPU product from nodeSelectorTerms, container port', () => {
  const yaml = `servingEngineSpec:
  containerPort: 9000
  modelSpec:
    - name: a
      repository: vllm/vllm-openai
      tag: v0.11.0
      modelURL: google/gemma-3-27b-it
      enableTool: true
      toolCallParser: pythonic
      vllmConfig:
        enableChunkedPrefill: false
        enablePrefixCaching: true
        maxNumSeqs: 32
        extraArgs: ["--kv-cache-dtype fp8"]
      nodeSelectorTerms:
        - matchExpressions:
            - key: nvidia.com/gpu.product
              operator: In
              values: [NVIDIA-B200]
    - name: b
      enabled: false
      modelURL: x/y
`;
  const { launches } = collectLaunches([memoryFile('values.yaml', yaml)]);
  assert.equal(launches.length, 1);
  const [l] = launches;
  assert.deepEqual(texts(l), [
    'vllm', 'serve', 'google/gemma-3-27b-it', '--host', '0.0.0.0', '--port', '9000', '--enable-auto-tool-choice',
    '--tool-call-parser', 'pythonic', '--no-enable-chunked-prefill', '--enable-prefix-caching', '--max-num-seqs', '32',
    '--kv-cache-dtype fp8',
  ]);
  assert.ok(l.notes.some((n) => n.value.includes('ONE argument')));
  assert.deepEqual(l.gpuHints.map((h) => [h.value, h.at?.line]), [['NVIDIA-B200', 19]]);
  assert.equal(l.source.object, 'servingEngineSpec.modelSpec[0] (a)');
});

test('vllmConfig keys the chart does not read, and extraArgs at the modelSpec level, are notes at the key: they never reach vLLM', () => {
  const yaml = `servingEngineSpec:
  modelSpec:
    - name: m
      repository: vllm/vllm-openai
      tag: v0.10.1
      modelURL: org/m
      extraArgs: ["--enforce-eager"]
      vllmConfig:
        maxModelLen: 4096
        kvCacheDtype: fp8
        extraArgs: ["--kv-cache-dtype", "auto"]
`;
  const [l] = collectLaunches([memoryFile('values.yaml', yaml)]).launches;
  assert.ok(!texts(l).includes('--enforce-eager'));
  assert.equal(texts(l)[texts(l).indexOf('--kv-cache-dtype') + 1], 'auto');
  const ignored = l.notes.filter((n) => /does not read it, so it never reaches vLLM/.test(n.value));
  assert.deepEqual(
    ignored.map((n) => [n.value.split(':')[0], `${n.at?.line}:${n.at?.column}`]),
    [['vllmConfig.kvCacheDtype', '10:9'], ['modelSpec[].extraArgs', '7:7']],
  );
});
