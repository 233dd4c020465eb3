import assert from 'node:assert/strict';
import { test } from 'node:test';
import { collectLaunches } from './collect.js';
import { envObject, fixture, memoryFile, texts, where } from './testing.js';

test('12: exec-form command list on an image whose entrypoint is `vllm serve "$@"`; environment map', () => {
  const [l] = collectLaunches([fixture('12-docker-compose-exec-form.yaml')]).launches;
  const t = texts(l);
  assert.deepEqual(t.slice(0, 4), ['vllm', 'serve', '--model', 'RedHatAI/Qwen3-VL-235B-A22B-Instruct-NVFP4']);
  assert.equal(t.length, 2 + 47, 'the 47 command items after the entrypoint');
  const after = (flag: string) => t[t.indexOf(flag) + 1];
  assert.equal(after('--attention-backend'), 'FLASHINFER');
  assert.equal(after('--kv-cache-dtype'), 'fp8');
  assert.equal(after('--limit-mm-per-prompt.image'), '2');
  assert.equal(after('--structured-outputs-config.enable_in_reasoning'), 'True');
  assert.equal(after('--default-chat-template-kwargs'), '{"thinking": true}');
  assert.equal(after('--max-num-batched-tokens'), '16384');
  assert.equal(where(l, '--kv-cache-dtype'), '95:9');
  assert.deepEqual(envObject(l), {
    OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '4', MKL_NUM_THREADS: '1', HF_HOME: '/hf_home', VLLM_USE_FLASHINFER_MOE_FP16: '1',
    CUDA_DEVICE_ORDER: 'PCI_BUS_ID', NCCL_IB_DISABLE: '1', NCCL_P2P_LEVEL: 'NVL', LMCACHE_USE_EXPERIMENTAL: 'True',
    VLLM_RPC_TIMEOUT: '1000000', LMCACHE_LOG_LEVEL: 'INFO', LMCACHE_LOCAL_CPU: 'True', LMCACHE_MAX_LOCAL_CPU_SIZE: '64',
    PYTHONHASHSEED: '123', PROMETHEUS_MULTIPROC_DIR: '/tmp',
  });
  assert.equal(l.source.object, 'services.vllm-qwen3-vl-235b-a22b-instruct-nvfp4');
});

test('string commands are split with shell quoting, folded sh -c scripts parsed, words located; env list form; GPU reservations noted', () => {
  const yaml = `services:
  a:
    image: vllm/vllm-openai:v0.10.1
    command: '--model org/m --speculative-config ''{"method": "ngram", "num_speculative_tokens": 5}'''
    environment:
      - VLLM_USE_TRTLLM_ATTENTION=1
      - FROM_HOST
  b:
    image: vllm/vllm-openai:latest
    entrypoint: /bin/sh -c
    command:
      - >
        vllm serve org/n
        --port \${PORT}
    deploy:
      resources:
        reservations:
          devices: [{driver: nvidia, count: 2, capabilities: [gpu]}]
  db:
    image: postgres
`;
  const { launches, notes } = collectLaunches([memoryFile('docker-compose.yml', yaml)]);
  assert.equal(notes.length, 0);
  const [a, b] = launches;
  assert.deepEqual(texts(a), ['vllm', 'serve', '--model', 'org/m', '--speculative-config', '{"method": "ngram", "num_speculative_tokens": 5}']);
  assert.equal(where(a, '--speculative-config'), '4:29');
  assert.deepEqual(envObject(a), { VLLM_USE_TRTLLM_ATTENTION: '1' });
  assert.deepEqual(texts(b), ['vllm', 'serve', 'org/n', '--port', '${PORT}']);
  assert.equal(where(b, '--port'), '14:9');
  assert.ok(b.notes.some((n) => n.value.includes('reserves 2 GPU')));
  assert.ok(b.notes.some((n) => n.value.startsWith('PORT')));
  assert.equal(launches.length, 2);
});
