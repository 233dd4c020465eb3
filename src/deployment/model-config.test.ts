import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from '../core/errors.js';
import { readModelFacts } from './model-config.js';
import type { LayerKind, ModelFacts } from './deployment.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '../../test/fixtures/model-configs');
const indices = (f: ModelFacts, kind: LayerKind): number[] =>
  f.layers.flatMap((k, i) => (k === kind ? [i] : []));
const range = (from: number, to: number, step = 1): number[] =>
  Array.from({ length: Math.ceil((to - from) / step) }, (_, k) => from + k * step);
const every6th = (n: number): number[] => range(5, n, 6);

/** A scratch directory holding `files` (name → JSON value or raw text), removed after fn. */
function withDir<T>(files: Record<string, unknown>, fn: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-model-'));
  try {
    for (const [name, content] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), typeof content === 'string' ? content : JSON.stringify(content));
    }
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const factsOf = (config: unknown, more: Record<string, unknown> = {}): ModelFacts =>
  withDir({ 'config.json': config, ...more }, (dir) => readModelFacts(join(dir, 'config.json')));

// --- the real configs, against test/fixtures/model-configs/SOURCES.md ---------------------------

test('gemma-2-9b-it: 42 layers, sliding = even indices, window 4096, no FP8 KV', () => {
  const f = readModelFacts(join(fixtures, 'gemma-2-9b-it'));
  assert.equal(f.modelType, 'gemma2');
  assert.equal(f.layers.length, 42);
  assert.deepEqual(indices(f, 'sliding'), range(0, 42, 2));
  assert.equal(f.window, 4096);
  assert.equal(f.kvDtypeFromCheckpoint, undefined);
  assert.equal(f.scales, undefined);
});

test('gemma-3-27b-it: text_config, 62 layers, full at 5,11,…,59, window 1024', () => {
  const f = readModelFacts(join(fixtures, 'gemma-3-27b-it/config.json'));
  assert.equal(f.modelType, 'gemma3_text');
  assert.equal(f.layers.length, 62);
  assert.deepEqual(indices(f, 'full'), every6th(62));
  assert.equal(indices(f, 'sliding').length, 52);
  assert.equal(f.layers[60], 'sliding');
  assert.equal(f.window, 1024);
  assert.equal(f.kvDtypeFromCheckpoint, undefined);
});

test('gemma-4-26b-a4b: 30 layers, full at 5,…,29, window 1024, no FP8 KV', () => {
  const f = readModelFacts(join(fixtures, 'gemma-4-26b-a4b'));
  assert.equal(f.layers.length, 30);
  assert.deepEqual(indices(f, 'full'), every6th(30));
  assert.equal(f.window, 1024);
  assert.equal(f.kvDtypeFromCheckpoint, undefined);
});

test('gemma-4-31b-it-nvfp4: 60 layers, 50 sliding, window 1024, FP8 KV declared twice', () => {
  const f = readModelFacts(join(fixtures, 'gemma-4-31b-it-nvfp4'));
  assert.equal(f.modelType, 'gemma4_text');
  assert.equal(f.layers.length, 60);
  assert.deepEqual(indices(f, 'full'), every6th(60));
  assert.equal(indices(f, 'sliding').length, 50);
  assert.equal(f.window, 1024);
  assert.equal(f.kvDtypeFromCheckpoint, 'fp8_e4m3');
  assert.match(f.kvDtypeEvidence ?? '', /config\.json: quantization_config\.kv_cache_scheme .*modelopt/);
  assert.match(f.kvDtypeEvidence ?? '', /hf_quant_config\.json: quantization\.kv_cache_quant_algo "FP8"/);
  assert.match(f.notes.join('\n'), /attention scales are unknown/);
});

test('mistral-7b-instruct-v0.3: explicit sliding_window null → no sliding layers', () => {
  const f = readModelFacts(join(fixtures, 'mistral-7b-instruct-v0.3'));
  assert.equal(f.layers.length, 32);
  assert.deepEqual(indices(f, 'sliding'), []);
  assert.equal(f.window, undefined);
});

test('qwen2.5-7b-instruct: use_sliding_window false makes sliding_window 131072 inert', () => {
  const f = readModelFacts(join(fixtures, 'qwen2.5-7b-instruct'));
  assert.equal(f.layers.length, 28);
  assert.deepEqual(indices(f, 'sliding'), []);
  assert.equal(f.window, undefined);
  assert.match(f.notes[0], /has no effect/);
});

test('gpt-oss-20b: 24 layers, even indices sliding, window 128, MXFP4 weights but no FP8 KV', () => {
  const f = readModelFacts(join(fixtures, 'gpt-oss-20b'));
  assert.deepEqual(indices(f, 'sliding'), range(0, 24, 2));
  assert.equal(f.window, 128);
  assert.equal(f.kvDtypeFromCheckpoint, undefined);
});

test('llama-3.1-8b: 32 full layers', () => {
  const f = readModelFacts(join(fixtures, 'llama-3.1-8b'));
  assert.deepEqual(f.layers, Array(32).fill('full'));
  assert.equal(f.window, undefined);
});

test('llama-4-scout: 36 chunked layers (chunk 8192), full at 3,7,…,47, no sliding', () => {
  const f = readModelFacts(join(fixtures, 'llama-4-scout-17b-16e-instruct'));
  assert.equal(f.layers.length, 48);
  assert.deepEqual(indices(f, 'full'), range(3, 48, 4));
  assert.equal(indices(f, 'chunked').length, 36);
  assert.deepEqual(indices(f, 'sliding'), []);
  assert.equal(f.chunkSize, 8192);
  assert.equal(f.window, undefined);
});

test('llama-3.1-70b-instruct-fp8: FP8 KV declared only by hf_quant_config.json', () => {
  const f = readModelFacts(join(fixtures, 'llama-3.1-70b-instruct-fp8'));
  assert.equal(f.layers.length, 80);
  assert.deepEqual(indices(f, 'sliding'), []);
  assert.equal(f.kvDtypeFromCheckpoint, 'fp8_e4m3');
  assert.equal(f.kvDtypeEvidence, 'hf_quant_config.json: quantization.kv_cache_quant_algo "FP8"');
  // The config.json alone, read from a directory without the sidecar, declares nothing.
  const alone = withDir({ 'config.json': '{"model_type": "llama", "num_hidden_layers": 80}' }, (dir) =>
    readModelFacts(dir),
  );
  assert.equal(alone.kvDtypeFromCheckpoint, undefined);
});

// --- families without a real fixture, from the transformers / vLLM rules --------------------------

test('Gemma 4 without layer_types: pattern 6 and the last layer forced full', () => {
  const f = factsOf({
    model_type: 'gemma4',
    text_config: { model_type: 'gemma4_text', num_hidden_layers: 8, sliding_window: 512 },
  });
  assert.deepEqual(indices(f, 'full'), [5, 7]);
  assert.equal(f.window, 512);
  const halved = factsOf({
    model_type: 'gemma4_text',
    num_hidden_layers: 6,
    sliding_window: 512,
    use_bidirectional_attention: 'all',
  });
  assert.equal(halved.window, 257);
});

test('Gemma 3: sliding_window_pattern and the default window', () => {
  const f = factsOf({ model_type: 'gemma3_text', num_hidden_layers: 8, sliding_window_pattern: 4 });
  assert.deepEqual(indices(f, 'full'), [3, 7]);
  assert.equal(f.window, 4096);
  assert.match(f.notes[0], /default of 4096/);
});

test('Mistral: a missing sliding_window means 4096 on every layer; null means none', () => {
  const missing = factsOf({ model_type: 'mistral', num_hidden_layers: 4 });
  assert.deepEqual(missing.layers, Array(4).fill('sliding'));
  assert.equal(missing.window, 4096);
  assert.match(missing.notes[0], /no sliding_window field/);
  assert.deepEqual(
    factsOf({ model_type: 'mistral', num_hidden_layers: 4, sliding_window: null }).layers,
    Array(4).fill('full'),
  );
  assert.equal(factsOf({ model_type: 'mistral', num_hidden_layers: 4, sliding_window: 2048 }).window, 2048);
});

test('Qwen2/3 with use_sliding_window: layers from max_window_layers on', () => {
  const f = factsOf({
    model_type: 'qwen2',
    num_hidden_layers: 6,
    use_sliding_window: true,
    sliding_window: 4096,
    max_window_layers: 4,
  });
  assert.deepEqual(indices(f, 'sliding'), [4, 5]);
  assert.equal(f.window, 4096);
  assert.deepEqual(
    indices(
      factsOf({ model_type: 'qwen3', num_hidden_layers: 6, use_sliding_window: true, max_window_layers: 6 }),
      'sliding',
    ),
    [],
  );
});

test('Cohere2 pattern 4, Phi-3 uniform window, MiMo hybrid_layer_pattern, Mixtral null', () => {
  assert.deepEqual(
    indices(factsOf({ model_type: 'cohere2', num_hidden_layers: 8, sliding_window: 4096 }), 'full'),
    [3, 7],
  );
  const phi = factsOf({ model_type: 'phi3', num_hidden_layers: 3, sliding_window: 2047 });
  assert.deepEqual(phi.layers, ['sliding', 'sliding', 'sliding']);
  assert.equal(phi.window, 2047);
  assert.match(phi.notes[0], /not established/);
  const mimo = factsOf({
    model_type: 'mimo_v2_flash',
    num_hidden_layers: 4,
    hybrid_layer_pattern: [0, 1, 1, 0],
    sliding_window_size: 128,
  });
  assert.deepEqual(mimo.layers, ['full', 'sliding', 'sliding', 'full']);
  assert.equal(mimo.window, 128);
  assert.deepEqual(factsOf({ model_type: 'mixtral', num_hidden_layers: 2, sliding_window: null }).layers, [
    'full',
    'full',
  ]);
});

test('GPT-OSS: vLLM parity rule wins over a disagreeing layer_types', () => {
  const f = factsOf({
    model_type: 'gpt_oss',
    num_hidden_layers: 4,
    sliding_window: 128,
    layer_types: ['full_attention', 'sliding_attention', 'full_attention', 'sliding_attention'],
  });
  assert.deepEqual(f.layers, ['sliding', 'full', 'sliding', 'full']);
  assert.match(f.notes[0], /even layers/);
});

test('layer_types values: hybrid_sliding, chunked, linear, unknown', () => {
  const f = factsOf({
    model_type: 'x',
    num_hidden_layers: 5,
    sliding_window: 64,
    attention_chunk_size: 256,
    layer_types: [
      'hybrid_sliding',
      'chunked_attention',
      'linear_attention',
      'full_attention',
      'deepseek_sparse_attention',
    ],
  });
  assert.deepEqual(f.layers, ['sliding', 'chunked', 'linear', 'full', 'full']);
  assert.equal(f.window, 64);
  assert.equal(f.chunkSize, 256);
  assert.match(f.notes.join('\n'), /"deepseek_sparse_attention" is read as full attention/);
});

test('Llama 4 with explicit no_rope_layers; thinker_config nesting', () => {
  const f = factsOf({
    model_type: 'llama4',
    text_config: {
      model_type: 'llama4_text',
      num_hidden_layers: 4,
      attention_chunk_size: 8192,
      no_rope_layers: [1, 0, 1, 1],
    },
  });
  assert.deepEqual(f.layers, ['chunked', 'full', 'chunked', 'chunked']);
  const omni = factsOf({
    model_type: 'qwen2_5_omni',
    thinker_config: { text_config: { model_type: 'qwen2', num_hidden_layers: 2 } },
  });
  assert.equal(omni.modelType, 'qwen2');
  assert.equal(omni.layers.length, 2);
});

test('KV dtype by checkpoint: compressed-tensors kv_cache_scheme, ModelOpt in config.json, unknown algo', () => {
  const ct = factsOf({
    model_type: 'llama',
    num_hidden_layers: 1,
    quantization_config: {
      quant_method: 'compressed-tensors',
      kv_cache_scheme: { num_bits: 8, type: 'float', strategy: 'tensor', dynamic: false, symmetric: true },
    },
  });
  assert.equal(ct.kvDtypeFromCheckpoint, 'fp8_e4m3');
  assert.match(ct.kvDtypeEvidence ?? '', /compressed-tensors/);
  const none = factsOf({
    model_type: 'llama',
    num_hidden_layers: 1,
    quantization_config: { quant_method: 'compressed-tensors', kv_cache_scheme: null },
  });
  assert.equal(none.kvDtypeFromCheckpoint, undefined);
  const mo = factsOf({
    model_type: 'llama',
    num_hidden_layers: 1,
    quantization_config: { quant_method: 'modelopt', quant_algo: 'FP8', kv_cache_quant_algo: 'NVFP4' },
  });
  assert.equal(mo.kvDtypeFromCheckpoint, 'nvfp4');
  const odd = factsOf(
    { model_type: 'llama', num_hidden_layers: 1 },
    { 'hf_quant_config.json': { quantization: { kv_cache_quant_algo: 'INT8' } } },
  );
  assert.equal(odd.kvDtypeFromCheckpoint, undefined);
  assert.match(odd.notes.join('\n'), /"INT8" is not a KV-cache format faultline knows/);
});

test('NaN in config.json is accepted (Python writes it)', () => {
  const f = withDir(
    { 'config.json': '{"model_type": "llama", "num_hidden_layers": 2, "rope_theta": NaN}' },
    (dir) => readModelFacts(dir),
  );
  assert.equal(f.layers.length, 2);
});

test('bad input: not JSON (file:line:col), not an object, no layer count, wrong layer_types length, missing paths', () => {
  withDir({ 'config.json': '{\n  "model_type": "llama",\n  "num_hidden_layers": 2,\n}\n' }, (dir) => {
    assert.throws(
      () => readModelFacts(dir),
      (err) =>
        err instanceof UserError &&
        err.at?.file === join(dir, 'config.json') &&
        err.at.line === 4 &&
        err.at.column === 1,
    );
  });
  assert.throws(() => factsOf([1, 2]), /must hold a JSON object/);
  assert.throws(() => factsOf({ model_type: 'llama' }), /num_hidden_layers is missing/);
  assert.throws(
    () => factsOf({ model_type: 'x', num_hidden_layers: 3, layer_types: ['full_attention'] }),
    /layer_types has 1 entries/,
  );
  assert.throws(() => readModelFacts('/no/such/dir'), /no such model config/);
  withDir({ 'README.md': 'x' }, (dir) => assert.throws(() => readModelFacts(dir), /has no config\.json/));
});
