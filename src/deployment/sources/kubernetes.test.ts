import assert from 'node:assert/strict';
import { test } from 'node:test';
import { collectLaunches } from './collect.js';
import { envObject, fixture, memoryFile, texts, where } from './testing.js';

test('13: Deployment with command + exec-form args; $(MODEL_ID) expands from env; GKE accelerator label is a GPU hint', () => {
  const { launches } = collectLaunches([fixture('13-k8s-deployment-gke-gemma3.yaml')]);
  assert.equal(launches.length, 1);
  const [l] = launches;
  assert.deepEqual(texts(l), [
    'python3', '-m', 'vllm.entrypoints.openai.api_server', '--model=google/gemma-3-27b-it', '--tensor-parallel-size=1',
    '--host=0.0.0.0', '--port=8000', '--swap-space=16', '--gpu-memory-utilization=0.95', '--max-model-len=32768', '--max-num-seqs=4',
  ]);
  assert.equal(where(l, '--max-model-len=32768'), '55:11');
  assert.deepEqual(envObject(l), { LD_LIBRARY_PATH: '${LD_LIBRARY_PATH}:/usr/local/nvidia/lib64', MODEL_ID: 'google/gemma-3-27b-it' });
  assert.equal(l.env.has('HUGGING_FACE_HUB_TOKEN'), false, 'a secret-backed value is unknown, not empty');
  assert.deepEqual(l.gpuHints.map((h) => [h.value, h.at?.line]), [['nvidia-a100-80gb', 75]]);
  assert.equal(l.image?.value, 'docker.io/vllm/vllm-openai:v0.10.0');
  assert.equal(l.source.object, 'Deployment/vllm-gemma-deployment spec.template.spec container inference-server');
});

test('14: flow-sequence args and no command → the image entrypoint runs them', () => {
  const [l] = collectLaunches([fixture('14-k8s-deployment-flow-args.yaml')]).launches;
  assert.deepEqual(texts(l), [
    'vllm', 'serve', '--model', 'mistralai/Mistral-7B-Instruct-v0.2', '--download-dir', '/models-cache', '--dtype', 'float16',
    '--max-model-len', '6144',
  ]);
  assert.equal(where(l, '--max-model-len'), '60:13');
  assert.deepEqual(envObject(l), { HUGGING_FACE_HUB_TOKEN: '' });
  assert.ok(l.notes.some((n) => n.value.includes('entrypoint')));
});

test('15: LeaderWorkerSet leader `sh -c` string folded over two lines; the worker runs no vLLM', () => {
  const [l, ...rest] = collectLaunches([fixture('15-lws-leader-sh-c.yaml')]).launches;
  assert.equal(rest.length, 0);
  assert.deepEqual(texts(l), [
    'python3', '-m', 'vllm.entrypoints.openai.api_server', '--port', '8080', '--model', 'meta-llama/Llama-3.1-405B-Instruct',
    '--tensor-parallel-size', '8', '--pipeline_parallel_size', '2',
  ]);
  // located inside the double-quoted scalar, on its second line
  assert.equal(where(l, 'python3'), '25:18');
  assert.equal(where(l, '--tensor-parallel-size'), '25:119');
  assert.deepEqual(envObject(l), { HF_TOKEN: '$HF_TOKEN' });
  assert.match(l.source.object ?? '', /^LeaderWorkerSet\/vllm .*leaderTemplate/);
});

test('nodeSelector and required node affinity GPU product labels; StatefulSet, Job and Pod; block-scalar sh -c', () => {
  const yaml = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: s}
spec:
  template:
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-B200
      containers:
        - name: v
          image: vllm/vllm-openai:v0.11.0
          command: ["/bin/sh", "-c"]
          args:
            - |
              export X=1
              vllm serve org/m \\
                --kv-cache-dtype fp8
---
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  template:
    spec:
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
              - matchExpressions:
                  - {key: nvidia.com/gpu.product, operator: In, values: [NVIDIA-H100-80GB-HBM3]}
      containers:
        - name: side
          image: busybox
          command: [sleep, infinity]
        - name: v
          image: vllm/vllm-openai:latest
          args: [org/m2, --dtype, bfloat16]
          env:
            - {name: VLLM_ATTENTION_BACKEND, valueFrom: {configMapKeyRef: {name: c, key: k}}}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
    - name: v
      image: x
      command: [vllm, serve, "$(M)", "$$(M)"]
      env: [{name: M, value: org/m3}]
`;
  const [a, b, c] = collectLaunches([memoryFile('m.yaml', yaml)]).launches;
  assert.deepEqual(texts(a), ['vllm', 'serve', 'org/m', '--kv-cache-dtype', 'fp8']);
  assert.equal(where(a, '--kv-cache-dtype'), '17:17');
  assert.deepEqual(envObject(a), { X: '1' });
  assert.deepEqual(a.gpuHints.map((h) => h.value), ['NVIDIA-B200']);
  assert.deepEqual(texts(b), ['vllm', 'serve', 'org/m2', '--dtype', 'bfloat16']);
  assert.deepEqual(b.gpuHints.map((h) => h.value), ['NVIDIA-H100-80GB-HBM3']);
  assert.ok(b.notes.some((n) => n.value.includes('VLLM_ATTENTION_BACKEND comes from config map c/k')));
  assert.deepEqual(texts(c), ['vllm', 'serve', 'org/m3', '$(M)']);
});
