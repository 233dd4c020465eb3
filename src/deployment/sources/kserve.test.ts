import assert from 'node:assert/strict';
import { test } from 'node:test';
import { collectLaunches } from './collect.js';
import { envObject, fixture, memoryFile, texts, where } from './testing.js';

test('18: a ServingRuntime inside an OpenShift Template, {{.Name}} kept as written', () => {
  const { launches, perFile } = collectLaunches([fixture('18-kserve-servingruntime-template.yaml')]);
  assert.equal(launches.length, 1);
  const [l] = launches;
  assert.deepEqual(texts(l), ['python', '-m', 'vllm.entrypoints.openai.api_server', '--port=8080', '--model=/mnt/models', '--served-model-name={{.Name}}']);
  assert.deepEqual(envObject(l), { HF_HOME: '/tmp/hf_home' });
  assert.equal(l.source.kind, 'kserve');
  assert.equal([...perFile.values()][0], 1);
});

test('19 + 20: the InferenceService uses the runtime from the other file: name filled in, storageUri as the model', () => {
  const { launches, perFile } = collectLaunches([fixture('19-kserve-servingruntime.yaml'), fixture('20-kserve-inferenceservice.yaml')]);
  assert.equal(launches.length, 1, 'the runtime is not reported again on its own');
  const [l] = launches;
  assert.deepEqual(texts(l), [
    'python3', '-m', 'vllm.entrypoints.openai.api_server', '--port=8080', '--served-model-name=opt-125m-no-cache', '--model=/mnt/models',
  ]);
  assert.equal(l.tokens[0].at?.file.endsWith('19-kserve-servingruntime.yaml'), true);
  assert.equal(l.modelHint?.value, 'facebook/opt-125m');
  assert.equal(l.modelHint?.at?.line, 23);
  assert.deepEqual(envObject(l), {
    LMCACHE_USE_EXPERIMENTAL: 'True', HF_HOME: '/tmp/hf', VLLM_CONFIG_ROOT: '/tmp', VLLM_WORKER_MULTIPROC_METHOD: 'spawn',
    VLLM_CACHE_ROOT: '/tmp/vllm', HOME: '/tmp',
  });
  assert.equal(l.source.object, 'InferenceService/opt-125m-no-cache');
  assert.deepEqual([...perFile.values()], [1, 1]);
});

test('20 alone: the stock kserve-vllmserver runtime, said so', () => {
  const [l] = collectLaunches([fixture('20-kserve-inferenceservice.yaml')]).launches;
  assert.deepEqual(texts(l), ['python', '-m', 'vllm.entrypoints.openai.api_server', '--port=8080', '--served-model-name=opt-125m-no-cache', '--model=/mnt/models']);
  assert.ok(l.notes.some((n) => n.value.includes('stock kserve-vllmserver')));
});

test('InferenceService args append to the runtime args; VLLM_ADDITIONAL_ARGS is split and appended with positions', () => {
  const yaml = `apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: svc}
spec:
  predictor:
    model:
      modelFormat: {name: vLLM}
      runtime: kserve-vllmserver
      storageUri: pvc://models/gemma
      args: ["--kv-cache-dtype=fp8"]
      env:
        - name: VLLM_ADDITIONAL_ARGS
          value: "--speculative-config '{\\"method\\": \\"ngram\\"}' -tp 2"
`;
  const [l] = collectLaunches([memoryFile('isvc.yaml', yaml)]).launches;
  assert.deepEqual(texts(l).slice(3), [
    '--port=8080', '--served-model-name=svc', '--model=/mnt/models', '--kv-cache-dtype=fp8',
    '--speculative-config', '{"method": "ngram"}', '-tp', '2',
  ]);
  assert.equal(where(l, '-tp'), '13:66');
  assert.equal(l.modelHint?.value, 'pvc://models/gemma');
});

test('LLMInferenceService: vllm serve /mnt/models + parallelism + VLLM_ADDITIONAL_ARGS', () => {
  const yaml = `apiVersion: serving.kserve.io/v1alpha2
kind: LLMInferenceService
metadata: {name: llm}
spec:
  model: {uri: "hf://google/gemma-3-27b-it", name: gemma}
  parallelism: {tensor: 4}
  template:
    containers:
      - name: main
        env:
          - name: VLLM_ADDITIONAL_ARGS
            value: --kv-cache-dtype=fp8 --attention-backend FLASHINFER
`;
  const [l] = collectLaunches([memoryFile('llm.yaml', yaml)]).launches;
  assert.deepEqual(texts(l), [
    'vllm', 'serve', '/mnt/models', '--served-model-name', 'gemma', '--tensor-parallel-size', '4', '--kv-cache-dtype=fp8',
    '--attention-backend', 'FLASHINFER',
  ]);
  assert.equal(l.modelHint?.value, 'google/gemma-3-27b-it');
  assert.equal(where(l, '--attention-backend'), '12:41');
});
