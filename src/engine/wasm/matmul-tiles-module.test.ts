import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRng } from '../../core/rng.js';
import { randomModel, tinyConfig } from '../testing/random-init.js';
import { accelerate } from './accelerate.js';
import { assertRowsMatchAlone } from './testing.js';
import { matmulTilesModuleBytes, MAX_TILE_ROWS, TILE_SCRATCH_FLOATS } from './matmul-tiles-module.js';
import { matvecModuleBytes } from './matvec-module.js';

interface Wasm {
  Module: new (b: Uint8Array) => object;
  Instance: new (m: object, i: object) => { exports: Record<string, (...a: number[]) => void> };
  Memory: new (d: { initial: number }) => { buffer: ArrayBuffer };
}
const W = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;

test('tiles ≡ matvec bit for bit: every row count 1 … 4, odd output ranges, widths 16 … 768', () => {
  const memory = new W.Memory({ initial: 64 });
  const heap = new Float32Array(memory.buffer);
  const matvec = new W.Instance(new W.Module(matvecModuleBytes()), { env: { memory } }).exports.matvec;
  const tiles = new W.Instance(new W.Module(matmulTilesModuleBytes()), { env: { memory } }).exports;
  const rng = createRng(11);
  for (const [D, O] of [[16, 1], [48, 7], [256, 258], [768, 33]]) {
    const wAt = 0, xAt = wAt + D * O, outA = xAt + MAX_TILE_ROWS * D, outB = outA + MAX_TILE_ROWS * O, scr = Math.ceil((outB + MAX_TILE_ROWS * O) / 4) * 4;
    assert.ok((scr + TILE_SCRATCH_FLOATS) * 4 < memory.buffer.byteLength);
    // mixed magnitudes and signs (cancellation makes the order visible in the low bits)
    for (let i = 0; i < D * O + MAX_TILE_ROWS * D; i++) heap[i] = rng.normal() * (i % 7 === 0 ? 1000 : 1);
    for (let R = 1; R <= MAX_TILE_ROWS; R++) {
      for (let r = 0; r < R; r++) matvec(wAt * 4, (xAt + r * D) * 4, (outA + r * O) * 4, D, O);
      heap.fill(NaN, outB, outB + R * O);
      // the outputs in uneven ranges: pairs, a single last output, ranges starting at odd outputs
      for (let o0 = 0; o0 < O; o0 += 3) tiles[`tiles${R}`](wAt * 4, xAt * 4, outB * 4, D, O, o0, Math.min(O, o0 + 3), scr * 4);
      const a = new Uint32Array(memory.buffer, outA * 4, R * O), b = new Uint32Array(memory.buffer, outB * 4, R * O);
      assert.deepEqual(b, a, `D ${D} O ${O} R ${R}`);
    }
  }
});

test('accelerated matmul, n rows together ≡ one row at a time, bit for bit (tiles, chunks of 16 rows, odd widths)', () => {
  // hidden 64 (tiles), intermediate 83: gate/up have an odd output count, down has D = 83 (the rows kernel)
  const model = randomModel(tinyConfig({ hiddenSize: 64, intermediateSize: 83 }), { seed: 5 });
  const fast = accelerate(model)!;
  const rng = createRng(6);
  const lw = fast.model.weights.layers[0];
  for (const [w, D, O] of [[lw.wGate, 64, 83], [lw.wDown, 83, 64], [fast.model.weights.embed, 64, 258]] as const)
    for (const n of [2, 3, 5, 8, 16, 17, 37]) {
      const x = Float32Array.from({ length: n * D }, () => rng.normal());
      assertRowsMatchAlone(fast.matmul, x, w, n, D, O, `D ${D} O ${O} n ${n}`);
    }
});
