/**
 * Every matmul kernel path this machine has (kernels.ts: native, wasm-simd, js) on the trained model
 * (models/tiny-swa, bf16 math, FP8 KV as `engine serve` runs it, prompts crossing the 128-token
 * window, 48 greedy tokens each): native and wasm-simd give the same logits bit for bit (both float32
 * in one fixed order), so the same tokens. js accumulates in float64, so a logit can land on the other
 * side of a BF16 rounding: its tokens are the same up to the first step where the top two BF16 logits
 * are within one BF16 step (2⁻⁷ relative) in one of the paths — a tie that either choice answers
 * honestly — and after it they may part (measured: 1 of 3 prompts parts, at token 32, where the
 * float32 paths see an exact tie).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createReferenceBackend } from '../../src/engine/attention/reference-backend.js';
import { Engine } from '../../src/engine/engine.js';
import { availableKernels, type KernelPath } from '../../src/engine/kernels.js';
import { loadModel } from '../../src/engine/load-model.js';
import { argmax } from '../../src/engine/sampling.js';
import { repoRoot } from '../helpers/cli.js';

const model = loadModel(`${repoRoot}models/tiny-swa`);
const prompts = [
  'Call me Ishmael. Some years ago',
  'The whale',
  'It was the best of times, it was the worst of times, it was the age of wisdom, it was the age of foolishness, it was the epoch of belief, it was the epoch of incredulity',
];

/** Top-two margin of a logits row, relative to the top logit's magnitude. */
function margin(row: Float32Array): number {
  let a = -Infinity,
    b = -Infinity;
  for (const x of row)
    if (x > a) [a, b] = [x, a];
    else if (x > b) b = x;
  return (a - b) / Math.max(Math.abs(a), 1e-30);
}

function greedy(path: KernelPath): { tokens: number[][]; logits: Float32Array[] } {
  const engine = new Engine(model, {
    precision: 'bf16',
    kvDtype: 'fp8_e4m3',
    pageSize: 16,
    cacheKind: 'paged',
    backend: createReferenceBackend(),
    kernels: path,
  });
  assert.equal(engine.kernels, path);
  const tokens: number[][] = [],
    logits: Float32Array[] = [];
  prompts.forEach((p, seqId) => {
    let r = engine.forward([{ seqId, tokens: [256, ...Buffer.from(p)] }])[0];
    const out: number[] = [];
    for (let i = 0; i < 48; i++) {
      const last = r.logits.subarray((r.rows - 1) * model.config.vocabSize);
      logits.push(Float32Array.from(last));
      out.push(argmax(last));
      r = engine.forward([{ seqId, tokens: [out[out.length - 1]] }])[0];
    }
    tokens.push(out);
  });
  return { tokens, logits };
}

test('kernel paths: native ≡ wasm-simd bit for bit; js the same tokens up to a BF16 tie', (t) => {
  const paths = availableKernels();
  t.diagnostic(`kernel paths here: ${paths.join(', ')}`);
  assert.ok(paths.includes('wasm-simd') && paths.includes('js'));
  const runs = new Map(paths.map((p) => [p, greedy(p)] as const));
  const js = runs.get('js')!,
    simd = runs.get('wasm-simd')!;
  if (runs.has('native')) assert.deepEqual(runs.get('native')!.tokens, simd.tokens, 'native tokens');
  let parted = 0;
  prompts.forEach((_, i) => {
    const at = simd.tokens[i].findIndex((id, k) => id !== js.tokens[i][k]);
    if (at < 0) return;
    parted++;
    const row = i * 48 + at;
    const tie = Math.min(margin(simd.logits[row]), margin(js.logits[row]));
    t.diagnostic(`prompt ${i}: js parts at token ${at} (top-two margin ${tie.toExponential(2)} relative)`);
    assert.ok(tie <= 2 ** -7, `prompt ${i}: tokens part at ${at} without a BF16 tie (margin ${tie})`);
  });
  assert.ok(parted < prompts.length, 'most prompts give the same 48 tokens on every path');
  if (runs.has('native')) {
    const a = runs.get('native')!.logits,
      b = runs.get('wasm-simd')!.logits;
    a.forEach((row, i) =>
      assert.deepEqual(new Uint32Array(row.buffer), new Uint32Array(b[i].buffer), `logits row ${i}`),
    );
  }
});
