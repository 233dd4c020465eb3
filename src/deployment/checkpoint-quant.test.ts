import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkpointQuantization } from './checkpoint-quant.js';
import { readModelFacts } from './model-config.js';

const files = { config: 'config.json', hfQuant: 'hf_quant_config.json' };
const ctGroup = (inputActivations: unknown) => ({
  quantization_config: {
    quant_method: 'compressed-tensors',
    config_groups: { group_0: { targets: ['Linear'], input_activations: inputActivations } },
  },
});

test('compressed-tensors: input_activations decide static FP8, dynamic FP8, NVFP4 or weight-only', () => {
  const fp8 = { num_bits: 8, type: 'float', strategy: 'tensor', dynamic: false };
  assert.equal(checkpointQuantization(ctGroup(fp8), undefined, files)?.activations, 'fp8-static');
  assert.equal(
    checkpointQuantization(ctGroup({ ...fp8, strategy: 'token', dynamic: true }), undefined, files)
      ?.activations,
    'fp8-dynamic',
  );
  const nvfp4 = { num_bits: 4, type: 'float', strategy: 'tensor_group', group_size: 16, dynamic: 'local' };
  assert.equal(checkpointQuantization(ctGroup(nvfp4), undefined, files)?.activations, 'nvfp4');
  assert.equal(checkpointQuantization(ctGroup(null), undefined, files)?.activations, 'weight-only');
  assert.equal(
    checkpointQuantization(ctGroup({ num_bits: 8, type: 'int' }), undefined, files)?.activations,
    'unclassified',
  );
});

test('compressed-tensors kv_cache_scheme is recorded; null means none', () => {
  const c = ctGroup(null);
  assert.equal(checkpointQuantization(c, undefined, files)?.hasKvCacheScheme, false);
  const withKv = {
    quantization_config: {
      ...c.quantization_config,
      kv_cache_scheme: { num_bits: 8, type: 'float', strategy: 'tensor', dynamic: false, symmetric: true },
    },
  };
  const q = checkpointQuantization(withKv, undefined, files);
  assert.equal(q?.method, 'compressed-tensors');
  assert.equal(q?.hasKvCacheScheme, true);
  assert.match(q?.evidence ?? '', /compressed-tensors/);
});

test('ModelOpt quant_algo, in config.json or hf_quant_config.json', () => {
  const inConfig = { quantization_config: { quant_method: 'modelopt', quant_algo: 'NVFP4' } };
  assert.deepEqual(checkpointQuantization(inConfig, undefined, files), {
    method: 'modelopt',
    activations: 'nvfp4',
    hasKvCacheScheme: false,
    evidence: 'config.json: quantization_config.quant_method "modelopt", quant_algo "NVFP4"',
  });
  const sidecar = { quantization: { quant_algo: 'FP8', kv_cache_quant_algo: 'FP8' } };
  assert.equal(checkpointQuantization({}, sidecar, files)?.activations, 'fp8-static');
  assert.equal(
    checkpointQuantization({}, { quantization: { quant_algo: 'W4A16_NVFP4' } }, files)?.activations,
    'weight-only',
  );
  assert.equal(
    checkpointQuantization({}, { quantization: { quant_algo: 'MIXED_PRECISION' } }, files)?.activations,
    'unclassified',
  );
});

test('no quantization declared → undefined; other methods are unclassified', () => {
  assert.equal(checkpointQuantization({ model_type: 'llama' }, undefined, files), undefined);
  assert.equal(
    checkpointQuantization({ quantization_config: { quant_method: 'mxfp4' } }, undefined, files)?.activations,
    'unclassified',
  );
});

test('readModelFacts carries the quantization of a config.json (compressed-tensors, FP8 KV scheme)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-quant-'));
  try {
    const file = join(dir, 'config.json');
    const kv = { num_bits: 8, type: 'float', strategy: 'tensor', dynamic: false, symmetric: true };
    writeFileSync(
      file,
      JSON.stringify({
        model_type: 'llama',
        num_hidden_layers: 2,
        quantization_config: {
          ...ctGroup({ num_bits: 8, type: 'float', dynamic: false }).quantization_config,
          kv_cache_scheme: kv,
        },
      }),
    );
    const facts = readModelFacts(file);
    assert.equal(facts.quantization?.method, 'compressed-tensors');
    assert.equal(facts.quantization?.activations, 'fp8-static');
    assert.equal(facts.quantization?.hasKvCacheScheme, true);
    assert.equal(facts.kvDtypeFromCheckpoint, 'fp8_e4m3');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
