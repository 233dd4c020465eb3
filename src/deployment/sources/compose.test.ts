import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

test('interpolation in image, command (list and string), entrypoint and environment from .env and given values; the rest stays a run-time value', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fl-compose-'));
  try {
    writeFileSync(join(dir, '.env'), 'TAG=v0.10.1\nKV=fp8\nEXTRA=--enforce-eager --max-model-len 4096\n');
    const yaml = `services:
  list:
    image: vllm/vllm-openai:\${TAG}
    command: [--model, "\${MODEL:-Qwen/Qwen3-8B}", --kv-cache-dtype, "\${KV}", --port, "\${PORT}"]
    environment:
      VLLM_ATTENTION_BACKEND: \${ATTN:-FLASHINFER}
  str:
    image: vllm/vllm-openai:latest
    command: --model org/m \${EXTRA} --tensor-parallel-size \${TP:?set TP}
`;
    const path = join(dir, 'compose.yaml');
    writeFileSync(path, yaml);
    const file = { path: 'compose.yaml', absPath: path, baseDir: dir, text: yaml };
    const [list, str] = collectLaunches([file]).launches;
    const after = (l: typeof list, flag: string) => texts(l)[texts(l).indexOf(flag) + 1];
    assert.equal(after(list, '--model'), 'Qwen/Qwen3-8B');
    assert.equal(after(list, '--kv-cache-dtype'), 'fp8');
    assert.equal(after(list, '--port'), '${PORT}');
    assert.equal(where(list, 'fp8'), '4:69', 'the list item that held ${KV}');
    assert.equal(list.image?.value, 'vllm/vllm-openai:v0.10.1');
    assert.equal(envObject(list).VLLM_ATTENTION_BACKEND, 'FLASHINFER');
    assert.ok(list.notes.some((n) => /\$\{PORT\} is interpolated by Compose/.test(n.value)));
    assert.ok(list.notes.some((n) => /\$\{KV\} is "fp8" \(from \.env\)/.test(n.value)));
    // a string command is split after interpolation, as Compose does
    assert.deepEqual(texts(str).slice(-5), ['--enforce-eager', '--max-model-len', '4096', '--tensor-parallel-size', '${TP}']);
    assert.ok(texts(str).includes('--enforce-eager') && after(str, '--max-model-len') === '4096');
    assert.equal(after(str, '--tensor-parallel-size'), '${TP}');
    assert.ok(str.notes.some((n) => /Compose refuses to start without it \("set TP"\)/.test(n.value)));
    // given values win over .env
    const given = { vars: new Map([['KV', { value: 'auto' }]]), env: new Map() };
    const [again] = collectLaunches([file], given).launches;
    assert.equal(after(again, '--kv-cache-dtype'), 'auto');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
