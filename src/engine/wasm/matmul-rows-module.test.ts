import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRng } from '../../core/rng.js';
import { randomModel, tinyConfig } from '../testing/random-init.js';
import { accelerate, wasmSimdAvailable } from './accelerate.js';
import { assertRowsMatchAlone } from './testing.js';

// odd widths exercise every tail of the kernel (16-float chunks, 4-float chunks, scalars)
const model = randomModel(tinyConfig({ hiddenSize: 84, intermediateSize: 147, headDim: 21, numHeads: 4, numKvHeads: 2 }), { seed: 2 });

test('the WebAssembly SIMD kernels are available on this Node (the default engine path)', () => {
  assert.ok(wasmSimdAvailable());
});

test('rows in blocks of two ≡ one row at a time, bit for bit, for n = 1 … 7', () => {
  const fast = accelerate(model)!;
  const w = fast.model.weights.layers[0].wGate; // [147, 84]
  const D = 84, O = 147;
  const rng = createRng(4);
  for (let n = 1; n <= 7; n++) {
    const x = Float32Array.from({ length: n * D }, () => rng.normal());
    assertRowsMatchAlone(fast.matmul, x, w, n, D, O, `n=${n}`);
  }
});

test('partialMatmul over [0, D) ≡ matmul; over two ranges it sums to within float32 rounding', () => {
  const fast = accelerate(model)!;
  const w = fast.model.weights.layers[1].wUp;
  const D = 84, O = 147, n = 3;
  const rng = createRng(9);
  const x = Float32Array.from({ length: n * D }, () => rng.normal());
  const full = new Float32Array(n * O), part = new Float32Array(n * O), a = new Float32Array(n * O), b = new Float32Array(n * O);
  fast.matmul(full, x, w, n, D, O);
  fast.partialMatmul(part, x, w, n, D, O, 0, D);
  assert.deepEqual(part, full);
  fast.partialMatmul(a, x, w, n, D, O, 0, 48);
  fast.partialMatmul(b, x, w, n, D, O, 48, D);
  for (let i = 0; i < n * O; i++) assert.ok(Math.abs(a[i] + b[i] - full[i]) <= 1e-5 * (1 + Math.abs(full[i])), `output ${i}`);
});
