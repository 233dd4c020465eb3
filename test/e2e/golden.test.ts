/**
 * The engine reproduces the trained model's golden logits (models/tiny-swa/golden.safetensors,
 * written by training/golden.py from PyTorch in fp32): every position of every prompt, main head and
 * MTP head, within max abs 1e-3. Both sides compute in fp32 (the engine accumulates in float64),
 * so the differences are fp32 rounding noise (training/golden.py reports its own fp32-vs-fp64 gap).
 *
 * This test does not skip: without the committed model it fails, saying so.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadModel } from '../../src/engine/load-model.js';
import { exactForward } from '../../src/engine/generate.js';
import { mtpStep } from '../../src/engine/model.js';
import { readSafetensors } from '../../src/tensors/safetensors.js';
import { toFloat32 } from '../../src/tensors/tensor.js';
import { repoRoot } from '../helpers/cli.js';

const MODEL = join(repoRoot, 'models/tiny-swa');
const TOLERANCE = 1e-3;

test('engine logits (fp32 mode) match the PyTorch golden logits of models/tiny-swa within 1e-3', (t) => {
  assert.ok(existsSync(join(MODEL, 'golden.safetensors')), `${MODEL}/golden.safetensors is missing: the trained model has not been committed yet`);
  const model = loadModel(MODEL);
  const golden = readSafetensors(join(MODEL, 'golden.safetensors')).tensors;
  const V = model.config.vocabSize, d = model.config.hiddenSize;
  let prompts = 0, worstMain = 0, worstMtp = 0;
  for (let n = 0; golden.has(`prompt_${n}`); n++) {
    const ids = Array.from(toFloat32(golden.get(`prompt_${n}`)!));
    const want = toFloat32(golden.get(`logits_${n}`)!);
    const { logits, hidden } = exactForward(model, ids);
    assert.equal(logits.length, want.length, `prompt ${n}: logits shape`);
    for (let i = 0; i < want.length; i++) worstMain = Math.max(worstMain, Math.abs(logits[i] - want[i]));
    const mtpWant = golden.get(`mtp_logits_${n}`);
    if (mtpWant && model.weights.mtp) {
      const w = toFloat32(mtpWant);
      for (let t = 0; t + 1 < ids.length; t++) {
        const { logits: m } = mtpStep(model, model.weights.mtp, hidden.subarray(t * d, (t + 1) * d), ids[t + 1], 'fp32');
        for (let v = 0; v < V; v++) worstMtp = Math.max(worstMtp, Math.abs(m[v] - w[t * V + v]));
      }
    }
    prompts++;
  }
  t.diagnostic(`${prompts} prompts; max abs diff: main ${worstMain.toExponential(2)}, MTP ${worstMtp.toExponential(2)}`);
  assert.ok(prompts > 0, 'golden.safetensors holds no prompt_0');
  assert.ok(worstMain <= TOLERANCE, `main logits: max abs diff ${worstMain} > ${TOLERANCE}`);
  assert.ok(worstMtp <= TOLERANCE, `MTP logits: max abs diff ${worstMtp} > ${TOLERANCE}`);
});

test('models/tiny-swa-qscale loads through its symlinked weights shard: same weights, calibrated q scales', () => {
  const base = loadModel(MODEL);
  const q = loadModel(join(repoRoot, 'models/tiny-swa-qscale'));
  assert.deepEqual(q.weights.layers[3].wq, base.weights.layers[3].wq);
  assert.deepEqual(q.weights.scalesPresent, { q: true, k: true, v: true });
  assert.deepEqual(base.weights.scalesPresent, { q: false, k: true, v: true });
  assert.ok(q.weights.scales.every((s) => s.q > 0 && s.q !== 1));
  assert.deepEqual(q.weights.scales.map((s) => s.k), base.weights.scales.map((s) => s.k));
});
