import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDocument } from 'yaml';
import { collectLaunches } from './collect.js';
import { isVllmConfig } from './vllm-config.js';
import { fixture, texts } from './testing.js';

test('09: a vLLM config file given directly becomes `vllm serve --config FILE` located at its first key', () => {
  const f = fixture('09-vllm-config-file.yaml');
  const [l] = collectLaunches([f]).launches;
  assert.deepEqual(texts(l), ['vllm', 'serve', '--config', f.absPath]);
  assert.deepEqual(l.tokens[0].at, { file: f.path, line: 3, column: 1 });
  assert.equal(l.source.kind, 'vllm-config');
});

test('detection: vLLM option keys yes; Kubernetes, Compose, Helm values and arbitrary mappings no', () => {
  const yes = ['model: a\nport: 1\n', 'kv_cache_dtype: fp8\n', 'tensor-parallel-size: 2\nfoo: 1\n'];
  const no = ['apiVersion: v1\nkind: Pod\nmodel: x\n', 'services: {}\nmodel: x\n', 'name: x\nreplicas: 2\n', '- model\n', 'model: a\n"weird key": 1\n'];
  for (const y of yes) assert.equal(isVllmConfig(parseDocument(y).contents), true, y);
  for (const n of no) assert.equal(isVllmConfig(parseDocument(n).contents), false, n);
});

test('detection: a mapping is an option value only for a JSON-valued option; a `model:` section is data about a model', () => {
  const yes = ['model: a\ncompilation-config:\n  cudagraph_mode: FULL\n', 'kv-cache-dtype: fp8\nspeculative_config: {method: mtp}\n'];
  const no = ['meta: {title: x}\nmodel:\n  model_id: a\nfeatures: {}\n', 'model:\n  name: a\nmax-model-len: 4096\n'];
  for (const y of yes) assert.equal(isVllmConfig(parseDocument(y).contents), true, y);
  for (const n of no) assert.equal(isVllmConfig(parseDocument(n).contents), false, n);
});
