/**
 * BF16 weights in memory, measured: the native addon's matmuls over every projection of
 * models/tiny-swa's layers, with the weights as float32 and as BF16 bits (the same values: a BF16
 * checkpoint widened exactly), rounds alternating, medians, the load printed. One row (a lone decode:
 * the weights stream from cache or memory) and 16 rows (weights reused across the tile).
 *
 *   node --import tsx bench/bf16-weights.ts
 */
import { loadavg } from 'node:os';
import { loadModel } from '../src/engine/load-model.js';
import { nativeKernels } from '../src/engine/native.js';

const native = nativeKernels();
if (!native) {
  console.log('bf16-weights bench: the native addon is not built here (node scripts/build-native.mjs)');
  process.exit(0);
}
const model = loadModel(new URL('../models/tiny-swa', import.meta.url).pathname);
const { hiddenSize: d, intermediateSize: I, numHeads: hq, numKvHeads: hkv, headDim: hd } = model.config;
const shapes = model.weights.layers.flatMap((l) =>
  (
    [
      [l.wq, d, hq * hd],
      [l.wk, d, hkv * hd],
      [l.wv, d, hkv * hd],
      [l.wo, hq * hd, d],
      [l.wGate, d, I],
      [l.wUp, d, I],
      [l.wDown, I, d],
    ] as [Float32Array, number, number][]
  ).map(([w, D, O]) => ({ w, bf16: Uint16Array.from(new Uint32Array(w.buffer, w.byteOffset, w.length), (b) => b >>> 16), D, O })),
);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const n of [1, 16]) {
  const x = new Float32Array(n * Math.max(d, I)).fill(0.25), out = new Float32Array(n * Math.max(d, I));
  const reps = n === 1 ? 200 : 30;
  const times = { f32: [] as number[], bf16: [] as number[] };
  for (let round = 0; round < 9; round++)
    for (const kind of ['f32', 'bf16'] as const) {
      const t0 = performance.now();
      for (let r = 0; r < reps; r++) for (const s of shapes) native.matmul(out, x, kind === 'bf16' ? s.bf16 : s.w, n, s.D, s.O);
      times[kind].push((performance.now() - t0) / reps);
    }
  const f32 = median(times.f32), bf16 = median(times.bf16);
  console.log(`${n} row${n > 1 ? 's' : ''}: every layer's matmuls ${f32.toFixed(3)} ms with float32 weights, ${bf16.toFixed(3)} ms with BF16 → ${(f32 / bf16).toFixed(2)}× (load ${loadavg()[0].toFixed(1)})`);
}
