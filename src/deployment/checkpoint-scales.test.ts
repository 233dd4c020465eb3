import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeSafetensors } from '../tensors/safetensors.js';
import { fromFloat32, makeTensor, type Tensor } from '../tensors/tensor.js';
import { checkpointScales } from './checkpoint-scales.js';
import { readModelFacts } from './model-config.js';

const scalar = (x: number, dtype: 'F32' | 'BF16' = 'F32'): Tensor =>
  fromFloat32(Float32Array.of(x), dtype, []);

function withCheckpoint<T>(
  shards: Record<string, Record<string, Tensor>>,
  fn: (dir: string) => T,
  config?: unknown,
): T {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-ckpt-'));
  try {
    const names = Object.keys(shards);
    for (const [file, tensors] of Object.entries(shards)) writeSafetensors(join(dir, file), tensors);
    if (names.length > 1 || names[0] !== 'model.safetensors') {
      const weightMap = Object.fromEntries(
        Object.entries(shards).flatMap(([file, ts]) => Object.keys(ts).map((n) => [n, file])),
      );
      writeFileSync(
        join(dir, 'model.safetensors.index.json'),
        JSON.stringify({ metadata: {}, weight_map: weightMap }),
      );
    }
    if (config) writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const weight = makeTensor('BF16', [2, 2]);

test('sharded checkpoint: q/k/v scales per layer, values read from F32 and BF16 scalars', () => {
  const notes: string[] = [];
  const s = withCheckpoint(
    {
      'model-00001-of-00002.safetensors': {
        'model.layers.0.self_attn.q_proj.weight': weight,
        'model.layers.1.self_attn.q_proj.weight': weight,
      },
      'model-00002-of-00002.safetensors': {
        'model.layers.0.self_attn.k_scale': scalar(0.5),
        'model.layers.1.self_attn.k_scale': scalar(0.25, 'BF16'),
        'model.layers.0.self_attn.v_scale': scalar(2),
        'model.layers.1.self_attn.v_scale': scalar(4),
        'model.layers.0.self_attn.q_scale': scalar(0.125),
        'model.layers.1.self_attn.q_scale': scalar(8),
      },
    },
    (dir) => checkpointScales(dir, 2, notes),
  );
  assert.deepEqual(s, { present: { q: true, k: true, v: true }, q: [0.125, 8], k: [0.5, 0.25], v: [2, 4] });
  assert.deepEqual(notes, []);
});

test('ModelOpt names, missing layers (1.0, noted), legacy kv_scale, vision towers and MTP layers ignored', () => {
  const notes: string[] = [];
  const s = withCheckpoint(
    {
      'model.safetensors': {
        'model.language_model.layers.0.self_attn.k_proj.k_scale': scalar(0.5),
        'model.language_model.layers.0.self_attn.v_proj.v_scale': scalar(0.75),
        'model.language_model.layers.2.self_attn.kv_scale': scalar(3),
        'model.vision_tower.encoder.layers.0.self_attn.q_scale': scalar(9),
        'model.layers.3.self_attn.k_scale': scalar(7),
        'model.layers.0.mlp.gate_proj.input_scale': scalar(5),
      },
    },
    (dir) => checkpointScales(dir, 3, notes),
  );
  assert.deepEqual(s, { present: { q: false, k: true, v: true }, k: [0.5, 1, 3], v: [0.75, 1, 3] });
  const text = notes.join('\n');
  assert.match(text, /beyond the 3 decoder layers/);
  assert.match(text, /legacy kv_scale/);
  assert.match(text, /missing for some layers; vLLM uses 1\.0/);
});

test('per-channel scales are present but get no values; no checkpoint gives undefined', () => {
  const notes: string[] = [];
  const s = withCheckpoint(
    {
      'model.safetensors': {
        'model.layers.0.self_attn.k_scale': makeTensor('F32', [4]),
        'model.layers.0.self_attn.v_scale': scalar(1),
      },
    },
    (dir) => checkpointScales(dir, 1, notes),
  );
  assert.deepEqual(s, { present: { q: false, k: true, v: true }, v: [1] });
  assert.match(notes[0], /not per-tensor scalars/);
  const dir = mkdtempSync(join(tmpdir(), 'faultline-empty-'));
  try {
    assert.equal(checkpointScales(dir, 1, []), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('readModelFacts on a checkpoint directory fills scales; on the config file alone it does not', () => {
  const config = {
    model_type: 'gemma3_text',
    num_hidden_layers: 2,
    sliding_window: 128,
    sliding_window_pattern: 2,
  };
  withCheckpoint(
    {
      'model.safetensors': {
        'model.layers.0.self_attn.k_scale': scalar(0.5),
        'model.layers.1.self_attn.k_scale': scalar(0.5),
      },
    },
    (dir) => {
      const facts = readModelFacts(dir);
      assert.deepEqual(facts.layers, ['sliding', 'full']);
      assert.deepEqual(facts.scales, { present: { q: false, k: true, v: false }, k: [0.5, 0.5] });
      assert.equal(readModelFacts(join(dir, 'config.json')).scales, undefined);
    },
    config,
  );
});

test('an unreadable checkpoint leaves the scales unknown, with a note', () => {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-bad-'));
  try {
    writeFileSync(join(dir, 'model.safetensors'), 'not a safetensors file at all');
    const notes: string[] = [];
    assert.equal(checkpointScales(dir, 1, notes), undefined);
    assert.match(notes[0], /could not be read .*attention scales are unknown/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
