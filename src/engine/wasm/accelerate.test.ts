import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRng } from '../../core/rng.js';
import { createReferenceBackend } from '../attention/reference-backend.js';
import { Engine } from '../engine.js';
import { randomModel, tinyConfig } from '../testing/random-init.js';
import { accelerate, wasmSimdAvailable } from './accelerate.js';
import { assertRowsMatchAlone } from './testing.js';

test('WebAssembly SIMD is available on this Node (the engine falls back to JS kernels otherwise)', () => {
  assert.equal(wasmSimdAvailable(), true);
});

test('SIMD matmul: float32 accumulation within its error bound of float64, every tail length, batch-invariant', () => {
  const rng = createRng(3);
  for (const [D, O, n] of [[37, 5, 3], [64, 16, 1], [256, 258, 2], [768, 7, 5], [3, 2, 1]]) {
    const c = tinyConfig({ hiddenSize: D, intermediateSize: O, vocabSize: O, numHeads: 1, headDim: 2, numKvHeads: 1 });
    const model = randomModel({ ...c, numLayers: 0, layerTypes: [] }, { seed: D });
    const fast = accelerate(model)!;
    const w = fast.model.weights.embed; // [V = O, d = D]
    const x = Float32Array.from({ length: n * D }, () => rng.normal());
    const out = assertRowsMatchAlone(fast.matmul, x, w, n, D, O, 'batch-invariant');
    for (let r = 0; r < n; r++) {
      for (let o = 0; o < O; o++) {
        let exact = 0, absSum = 0;
        for (let i = 0; i < D; i++) {
          exact += w[o * D + i] * x[r * D + i];
          absSum += Math.abs(w[o * D + i] * x[r * D + i]);
        }
        // recursive float32 summation: |error| ≤ (D + 1)·2^-24·Σ|w·x| (+ product rounding, same order)
        assert.ok(Math.abs(out[r * O + o] - exact) <= (D + 2) * 2 ** -24 * absSum + 1e-30, `D ${D} O ${O} row ${r} out ${o}`);
      }
    }
  }
});

test('the accelerated model holds the same weights, once per model', () => {
  const model = randomModel(tinyConfig(), { seed: 2 });
  const a = accelerate(model)!;
  assert.equal(accelerate(model), a);
  assert.deepEqual(a.model.weights.layers[1].wDown, model.weights.layers[1].wDown);
  assert.deepEqual(a.model.weights.mtp!.ehProj, model.weights.mtp!.ehProj);
  assert.notEqual(a.model.weights.embed.buffer, model.weights.embed.buffer);
});

test('engine: SIMD kernels agree with JS kernels (fp32 mode: logits and MTP logits within 1e-4)', () => {
  const model = randomModel(tinyConfig(), { seed: 8, std: 0.08 });
  const make = (kernels: 'js' | 'wasm-simd') =>
    new Engine(model, { precision: 'fp32', kvDtype: 'fp32', pageSize: 16, cacheKind: 'paged', backend: createReferenceBackend(), kernels });
  const fast = make('wasm-simd'), slow = make('js');
  assert.equal(fast.kernels, 'wasm-simd');
  assert.equal(slow.kernels, 'js');
  const ids = Array.from({ length: 40 }, (_, i) => (i * 29) % 256);
  const a = fast.forward([{ seqId: 0, tokens: ids }])[0].logits;
  const b = slow.forward([{ seqId: 0, tokens: ids }])[0].logits;
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  assert.ok(worst > 0 && worst < 1e-4, `max abs ${worst}`);
  const mtpA = fast.mtpStep(fast.forward([{ seqId: 0, tokens: [5] }])[0].hidden, 7)!.logits;
  const mtpB = slow.mtpStep(slow.forward([{ seqId: 0, tokens: [5] }])[0].hidden, 7)!.logits;
  for (let i = 0; i < mtpA.length; i++) assert.ok(Math.abs(mtpA[i] - mtpB[i]) < 1e-4);
});
