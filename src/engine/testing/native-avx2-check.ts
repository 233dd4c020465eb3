/**
 * Run as a child process with FAULTLINE_NATIVE_ISA=avx2 (native.test.ts): the addon's AVX2 paths —
 * the matmul tiles and the scalar attention loops an AVX-512 machine otherwise never runs — against
 * the WebAssembly matmul and the JS reference attention, bit for bit. Prints `ok <isa>` or throws.
 */
import assert from 'node:assert/strict';
import { createRng } from '../../core/rng.js';
import { buildCase } from '../attention/testing.js';
import { referenceAttentionNative, referenceAttentionPairs } from '../attention/reference-backend.js';
import { nativeKernels } from '../native.js';
import { accelerate } from '../wasm/accelerate.js';
import { randomModel, tinyConfig } from './random-init.js';

const native = nativeKernels();
assert.ok(native, 'the addon loads');
const bits = (a: Float32Array) => new Uint32Array(a.buffer, a.byteOffset, a.length);
const rng = createRng(21);

const fast = accelerate(randomModel(tinyConfig({ hiddenSize: 80, intermediateSize: 144 }), { seed: 3, std: 0.1 }))!;
for (const [w, D, O] of [[fast.model.weights.layers[0].wGate, 80, 144], [fast.model.weights.layers[0].wDown, 144, 80]] as const)
  for (const n of [1, 2, 3, 16]) {
    const x = Float32Array.from({ length: n * D }, () => rng.normal());
    const want = new Float32Array(n * O), got = new Float32Array(n * O);
    fast.matmul(want, x, w, n, D, O);
    native.matmul(got, x, Float32Array.from(w), n, D, O);
    assert.deepEqual(bits(got), bits(want), `matmul D ${D} O ${O} n ${n}`);
  }

for (const [headDim, windowLeft, qLen] of [[64, 40, 1], [33, -1, 4], [8, 7, 2]]) {
  const built = buildCase({ seed: headDim, numHeads: 6, numKvHeads: 2, headDim, windowLeft, smScale: headDim ** -0.5, scales: { q: 1, k: 0.07, v: 0.03 }, kvDtype: 'fp8_e4m3', pageSize: 16, requests: [{ seqLen: 90, qLen }, { seqLen: 17, qLen }] });
  const want = new Float32Array(built.q.length), got = new Float32Array(built.q.length);
  for (const r of built.requests) {
    referenceAttentionPairs(built.q, want, r, built.layer);
    referenceAttentionNative(native, built.q, got, r, built.layer);
  }
  assert.deepEqual(bits(got), bits(want), `attention hd ${headDim} window ${windowLeft} qLen ${qLen}`);
}
console.log(`ok ${native.isa}`);
