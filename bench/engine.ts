/**
 * The engine's decode step against onnxruntime-node, on models/tiny-swa, on this machine.
 *
 * The anchor is the same model exported to ONNX by our own script (bench/onnx/decode-graph.ts: one
 * decode step, float32 weights, the same operations; bench/onnx/decode-graph.test.ts checks it gives
 * the engine's logits), run by onnxruntime-node's CPU provider on one intra-op thread, fed the keys
 * and values the engine holds in its cache. Both compute the same step: B sequences at the same
 * context length (prompt --context, default 200: the sliding layers attend their 128-key window, the
 * full layer every key), one new token each. The engine runs as `engine serve` builds it (bf16 math,
 * FP8 KV cache from the checkpoint, reference attention, paged cache) on ONE thread, with each kernel
 * path this machine has; after every step it rolls its sequences back, so every step sees the same
 * context.
 *
 * Rounds alternate engine and onnxruntime (and the kernel paths) so neighbours' load hits all alike;
 * each figure is the median over --rounds rounds of --steps steps; the load average is printed beside
 * it. The last line is the verdict:
 *   engine vs onnxruntime-node: 1 stream R1×, 16 streams R16× (load L)
 * R = onnxruntime's ms per step / the engine's (default kernel path): above 1 the engine is faster.
 *
 * llama.cpp is the second anchor, measured in the same rounds (bench/llama-cpp/decode-step.ts): the
 * same model as a BF16 GGUF, one thread, the B sequences in one context decoding together. Its line:
 *   engine vs llama.cpp: 1 stream R1×, 16 streams R16× (load L)
 * R = the engine's tok/s / llama.cpp's (default kernel path; both on BF16 weights).
 *
 *   npm run bench:engine [-- --rounds 7 --steps 40 --context 200 --all-paths]
 */
import { loadavg } from 'node:os';
import { createReferenceBackend } from '../src/engine/attention/reference-backend.js';
import { Engine, type EngineOptions } from '../src/engine/engine.js';
import { loadModel } from '../src/engine/load-model.js';
import { availableKernels, type KernelPath } from '../src/engine/kernels.js';
import { numberArg } from './args.js';
import { llamaCppDecode } from './llama-cpp/decode-step.js';
import { ortDecode } from './onnx/ort-decode.js';

const ROUNDS = numberArg('rounds', 7);
const STEPS = numberArg('steps', 40);
const CONTEXT = numberArg('context', 200);

const model = loadModel(new URL('../models/tiny-swa', import.meta.url).pathname);
const { vocabSize: V } = model.config;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const text = Buffer.from('Call me Ishmael. Some years ago, never mind how long precisely, having little or no money in my purse, and nothing particular to interest me on shore, I thought I would sail about a little and see the watery part of the world.');
/** Prompt b: CONTEXT tokens (BOS, then the text from offset 5b). */
const promptOf = (b: number) => [256, ...Array.from({ length: CONTEXT - 1 }, (_, i) => text[(i + 5 * b) % text.length])];

/** B sequences prefilled to CONTEXT tokens (different prompts), on one engine. */
function prefilled(B: number, kernels: KernelPath): Engine {
  const options: EngineOptions = { precision: 'bf16', kvDtype: 'fp8_e4m3', pageSize: 16, cacheKind: 'paged', backend: createReferenceBackend(), kernels, numBlocks: B * Math.ceil((CONTEXT + 16) / 16) + 16 };
  const engine = new Engine(model, options);
  for (let b = 0; b < B; b++) engine.forward([{ seqId: b, tokens: promptOf(b) }]);
  return engine;
}

const nextTokens = (B: number) => Array.from({ length: B }, (_, b) => 97 + (b % 26));

/** ms per engine step of B rows at the fixed context; also the greedy tokens of the step (for the kernel-path check). */
function engineRound(engine: Engine, B: number): { ms: number; argmax: number[] } {
  const batch = nextTokens(B).map((t, seqId) => ({ seqId, tokens: [t] }));
  let picks: number[] = [];
  const t0 = performance.now();
  for (let s = 0; s < STEPS; s++) {
    const out = engine.forward(batch);
    if (s === 0) picks = out.map((r) => argmaxOf(r.logits));
    for (let b = 0; b < B; b++) engine.rollback(b, CONTEXT);
  }
  return { ms: (performance.now() - t0) / STEPS, argmax: picks };
}

function argmaxOf(x: Float32Array): number {
  let best = 0;
  for (let i = 1; i < V; i++) if (x[i] > x[best]) best = i;
  return best;
}

const ort = await ortDecode(model);
// 'js' (float64, ~10× slower) only with --all-paths: its rounds would take most of the run
const paths = availableKernels().filter((p) => p !== 'js' || process.argv.includes('--all-paths'));
console.log(`engine bench: models/tiny-swa decode step at context ${CONTEXT}, ${ROUNDS} rounds × ${STEPS} steps, one thread; kernel paths: ${paths.join(', ')} (default ${paths[0]})`);
const ratios: Record<number, number> = {};
const llamaRatios: Record<number, number> = {};
for (const B of [1, 16]) {
  const engines = new Map(paths.map((p) => [p, prefilled(B, p)] as const));
  const feeds = ort.feeds(engines.get(paths[0])!.cache, Array.from({ length: B }, (_, b) => b), nextTokens(B));
  const llama = await llamaCppDecode(model, B, Array.from({ length: B }, (_, b) => promptOf(b)), nextTokens(B));
  const times = new Map<string, number[]>([...paths.map((p) => [p, []] as [string, number[]]), ['onnxruntime', []], ['llama.cpp', []]]);
  const tokens = new Map<string, string>();
  const loads: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    for (const [path, engine] of engines) {
      const r = engineRound(engine, B);
      tokens.set(path, JSON.stringify(r.argmax));
      if (round > 0) times.get(path)!.push(r.ms); // round 0 warms up
    }
    const t0 = performance.now();
    for (let s = 0; s < STEPS; s++) await ort.run(feeds);
    if (round > 0) times.get('onnxruntime')!.push((performance.now() - t0) / STEPS);
    const t1 = performance.now();
    for (let s = 0; s < STEPS; s++) await llama.step();
    if (round > 0) times.get('llama.cpp')!.push((performance.now() - t1) / STEPS);
    loads.push(loadavg()[0]);
  }
  const ortMs = median(times.get('onnxruntime')!);
  const same = new Set(tokens.values()).size === 1;
  console.log(`${B} stream${B > 1 ? 's' : ''}: onnxruntime-node ${ortMs.toFixed(3)} ms/step (${((B * 1000) / ortMs).toFixed(0)} tok/s)`);
  for (const path of paths) {
    const ms = median(times.get(path)!);
    console.log(`  engine ${path.padEnd(10)} ${ms.toFixed(3)} ms/step (${((B * 1000) / ms).toFixed(0)} tok/s), ${(ortMs / ms).toFixed(2)}× onnxruntime`);
  }
  console.log(`  next tokens ${same ? 'identical' : 'DIFFER'} across kernel paths; load during the rounds ${median(loads).toFixed(1)} (median of 1-min averages)`);
  const llamaMs = median(times.get('llama.cpp')!);
  console.log(`  llama.cpp (BF16 GGUF, one context of ${B} sequence${B > 1 ? 's' : ''}) ${llamaMs.toFixed(3)} ms/step (${((B * 1000) / llamaMs).toFixed(0)} tok/s); its next tokens ${JSON.stringify(llama.lastTokens) === tokens.get(paths[0]) ? 'equal' : 'differ from'} the engine's`);
  await llama.dispose();
  ratios[B] = ortMs / median(times.get(paths[0])!);
  llamaRatios[B] = llamaMs / median(times.get(paths[0])!);
}
await ort.session.release();
console.log(`engine vs onnxruntime-node: 1 stream ${ratios[1].toFixed(2)}×, 16 streams ${ratios[16].toFixed(2)}× (load ${load()})`);
console.log(`engine vs llama.cpp: 1 stream ${llamaRatios[1].toFixed(2)}×, 16 streams ${llamaRatios[16].toFixed(2)}× (load ${load()})`);
