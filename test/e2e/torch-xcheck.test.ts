/**
 * The engine agrees with the project's PyTorch model (training/model.py) on a faultline-written
 * random model: fp32 logits of every position and the MTP head's logits (fixture and provenance in
 * test/fixtures/engine/torch-xcheck/README.md). Tolerance 1e-4: both sides are fp32 (the engine
 * accumulates in float64); torch's own fp32-vs-fp64 gap on these prompts was 3.9e-6.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { exactForward } from '../../src/engine/generate.js';
import { loadModel } from '../../src/engine/load-model.js';
import { mtpStep } from '../../src/engine/model.js';
import { readSafetensors } from '../../src/tensors/safetensors.js';
import { toFloat32 } from '../../src/tensors/tensor.js';
import { repoRoot } from '../helpers/cli.js';

const DIR = join(repoRoot, 'test/fixtures/engine/torch-xcheck');

test('engine fp32 logits and MTP logits match PyTorch within 1e-4 (prompts crossing the window)', (t) => {
  const model = loadModel(DIR);
  const golden = readSafetensors(join(DIR, 'golden.safetensors')).tensors;
  const V = model.config.vocabSize, d = model.config.hiddenSize;
  let worstMain = 0, worstMtp = 0, prompts = 0;
  for (let n = 0; golden.has(`prompt_${n}`); n++, prompts++) {
    const ids = Array.from(toFloat32(golden.get(`prompt_${n}`)!));
    const want = toFloat32(golden.get(`logits_${n}`)!);
    const { logits, hidden } = exactForward(model, ids);
    assert.equal(logits.length, want.length);
    for (let i = 0; i < want.length; i++) worstMain = Math.max(worstMain, Math.abs(logits[i] - want[i]));
    const mtpWant = toFloat32(golden.get(`mtp_logits_${n}`)!);
    for (let p = 0; p + 1 < ids.length; p++) {
      const { logits: m } = mtpStep(model, model.weights.mtp!, hidden.subarray(p * d, (p + 1) * d), ids[p + 1], 'fp32');
      for (let v = 0; v < V; v++) worstMtp = Math.max(worstMtp, Math.abs(m[v] - mtpWant[p * V + v]));
    }
  }
  t.diagnostic(`${prompts} prompts; max abs diff main ${worstMain.toExponential(2)}, MTP ${worstMtp.toExponential(2)}`);
  assert.equal(prompts, 3);
  assert.ok(worstMain <= 1e-4, `main ${worstMain}`);
  assert.ok(worstMtp <= 1e-4, `MTP ${worstMtp}`);
});
