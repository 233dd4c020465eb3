/**
 * Engine throughput, single stream, on this machine: prefill and decode tokens/s and GFLOP/s for a
 * ~3M-parameter config, next to an anchor measured in the same run — a plain JS float32 dot-product
 * loop (the best a matvec can do here without SIMD) — so the numbers read as ratios.
 *
 * Then attention kernels, JS loops vs WebAssembly SIMD (bit-identical; the JS kernel is the anchor):
 * ms per forward step on models/tiny-swa (FP8 KV, BF16 math, SIMD matmuls, one thread), 1 and 16
 * sequences of 12-token prompts and 64 generated tokens, with the reference backend (k = 0) and with
 * sm100-affected + disable_flashinfer_q_quantization + MTP k = 7 (the canonical case).
 *
 *   npm run bench:engine            (or: node --import tsx bench/engine.ts [--decode 256] [--prompt 128] [--attention-only])
 * Each figure is the best of three runs (after a warm-up run): the machine may be shared.
 */
import { trtllmGenSwaSpecdec } from '../src/engine/attention/fault-models.js';
import { createFlashinferBackend } from '../src/engine/attention/flashinfer.js';
import { createReferenceBackend, type AttentionKernelChoice } from '../src/engine/attention/reference.js';
import type { AttentionBackend } from '../src/engine/attention/backend.js';
import type { ModelConfig } from '../src/engine/config.js';
import { Engine } from '../src/engine/engine.js';
import type { KvDtype } from '../src/engine/kv-cache/cache.js';
import { loadModel } from '../src/engine/load-model.js';
import { randomModel, tinyConfig } from '../src/engine/testing/random-init.js';
import { argmax, GREEDY } from '../src/engine/sampling.js';
import { Scheduler } from '../src/engine/scheduler.js';
import { specConfig } from '../src/engine/spec/config.js';
import { numberArg } from './args.js';

const argOf = numberArg;
const PROMPT = argOf('prompt', 128);
const DECODE = argOf('decode', 256);

// ~3.2M parameters: tiny-swa's widths with 4 layers (3 sliding, 1 full)
const config: ModelConfig = tinyConfig({
  hiddenSize: 256,
  intermediateSize: 768,
  numLayers: 4,
  numHeads: 4,
  numKvHeads: 2,
  headDim: 64,
  layerTypes: ['sliding', 'sliding', 'sliding', 'full'],
  slidingWindow: 128,
  queryPreAttnScalar: 64,
  maxPositions: 2048,
});
const model = randomModel(config, { seed: 1 });

function paramCount(c: ModelConfig): { matmul: number; total: number } {
  const { hiddenSize: d, intermediateSize: I, numHeads: hq, numKvHeads: hkv, headDim: hd, vocabSize: V } = c;
  const perLayer = d * hq * hd * 2 + d * hkv * hd * 2 + 3 * d * I;
  const matmul = c.numLayers * perLayer + V * d; // + tied output head
  return { matmul, total: c.numLayers * (perLayer + 4 * d + 2 * hd) + V * d + d };
}

/** FLOPs of one token at context length ctx (matmuls + attention scores and P·V). */
function flopsPerToken(c: ModelConfig, ctx: number): number {
  let att = 0;
  for (let l = 0; l < c.numLayers; l++) {
    const keys = c.layerTypes[l] === 'sliding' ? Math.min(ctx, c.slidingWindow!) : ctx;
    att += 4 * keys * c.numHeads * c.headDim;
  }
  return 2 * paramCount(c).matmul + att;
}

/** Anchor: GFLOP/s of a plain float32 matvec with four accumulators (the engine's inner loop), d×I weights. */
function anchorGflops(): number {
  const D = 256, O = 768;
  const w = Float32Array.from({ length: D * O }, (_, i) => Math.sin(i));
  const x = Float32Array.from({ length: D }, (_, i) => Math.cos(i));
  const out = new Float32Array(O);
  const run = () => {
    for (let o = 0; o < O; o++) {
      let a0 = 0, a1 = 0, a2 = 0, a3 = 0;
      const wo = o * D;
      for (let i = 0; i < D; i += 4) {
        a0 += w[wo + i] * x[i];
        a1 += w[wo + i + 1] * x[i + 1];
        a2 += w[wo + i + 2] * x[i + 2];
        a3 += w[wo + i + 3] * x[i + 3];
      }
      out[o] = a0 + a1 + (a2 + a3);
    }
  };
  for (let i = 0; i < 200; i++) run(); // warm up the JIT
  const reps = 1000;
  let best = Infinity;
  for (let k = 0; k < 3; k++) {
    const t0 = performance.now();
    for (let i = 0; i < reps; i++) run();
    best = Math.min(best, (performance.now() - t0) / 1000);
  }
  return (2 * D * O * reps) / best / 1e9;
}

interface Result {
  name: string;
  prefillTps: number;
  prefillGflops: number;
  decodeTps: number;
  decodeGflops: number;
}

function measure(name: string, backend: AttentionBackend, kvDtype: KvDtype, cacheKind: 'paged' | 'contiguous', kernels: 'js' | 'wasm-simd'): Result {
  const prompt = Array.from({ length: PROMPT }, (_, i) => (i * 37) % 256);
  const run = () => {
    const e = new Engine(model, { precision: 'bf16', kvDtype, pageSize: 16, cacheKind, backend, kernels });
    const t0 = performance.now();
    let step = e.forward([{ seqId: 0, tokens: prompt }])[0];
    const t1 = performance.now();
    for (let i = 0; i < DECODE; i++) {
      const last = step.logits.subarray((step.rows - 1) * config.vocabSize);
      step = e.forward([{ seqId: 0, tokens: [argmax(last)] }])[0];
    }
    const t2 = performance.now();
    return { prefill: (t1 - t0) / 1000, decode: (t2 - t1) / 1000 };
  };
  run(); // warm-up
  // best of three: this machine is shared, and the fastest run is the least disturbed one
  const runs = [run(), run(), run()];
  const prefill = Math.min(...runs.map((r) => r.prefill));
  const decode = Math.min(...runs.map((r) => r.decode));
  let prefillFlops = 0;
  for (let p = 0; p < PROMPT; p++) prefillFlops += flopsPerToken(config, p + 1);
  let decodeFlops = 0;
  for (let p = PROMPT; p < PROMPT + DECODE; p++) decodeFlops += flopsPerToken(config, p + 1);
  return {
    name,
    prefillTps: PROMPT / prefill,
    prefillGflops: prefillFlops / prefill / 1e9,
    decodeTps: DECODE / decode,
    decodeGflops: decodeFlops / decode / 1e9,
  };
}

/** One serving run: n sequences through the scheduler; engine.forward ms per step, attention ms per step, the generated ids. */
function servingRun(backend: AttentionBackend, k: number, n: number) {
  const tiny = tinySwa();
  const engine = new Engine(tiny, { precision: 'bf16', kvDtype: 'fp8_e4m3', pageSize: 16, cacheKind: 'paged', numSpeculativeTokens: k, backend });
  let attention = 0,
    forward = 0;
  const run = backend.run.bind(backend);
  backend.run = (...args) => {
    const t0 = performance.now();
    run(...args);
    attention += performance.now() - t0;
  };
  const step = engine.forward.bind(engine);
  engine.forward = (batch) => {
    const t0 = performance.now();
    const results = step(batch);
    forward += performance.now() - t0;
    return results;
  };
  const scheduler = new Scheduler(engine, { spec: k ? specConfig('mtp', k) : null, maxNumSeqs: 16, maxModelLen: tiny.config.maxPositions });
  const ids: number[][] = [];
  const text = Buffer.from('The window slides past the page boundary while the drafts are verified again.');
  for (let i = 0; i < n; i++) {
    const out: number[] = (ids[i] = []);
    const promptIds = [256, ...text.subarray(i * 3, i * 3 + 11)];
    scheduler.submit({ promptIds, maxTokens: 64, ignoreEos: true, sampling: GREEDY, seed: i }, { onTokens: (t) => out.push(...t.map((x) => x.id)), onFinish: () => {} });
  }
  scheduler.runToCompletion();
  const steps = scheduler.counters.steps;
  return { ms: forward / steps, attentionMs: attention / steps, steps, ids };
}
let tinyModel: ReturnType<typeof loadModel> | null = null;
const tinySwa = () => (tinyModel ??= loadModel(new URL('../models/tiny-swa', import.meta.url).pathname));

/** JS vs SIMD attention, interleaved runs, best of three after a warm-up; the generated tokens must agree. */
function attentionRows(): void {
  const settings: [string, (kernels: AttentionKernelChoice) => AttentionBackend, number][] = [
    ['reference, k=0', (kernels) => createReferenceBackend({ kernels }), 0],
    [
      'sm100-affected + disable Q quant, MTP k=7',
      (kernels) => createFlashinferBackend({ bookkeeping: 'vllm-affected', faultModel: trtllmGenSwaSpecdec, disableQQuantization: true, useTrtllmAttention: null, kernels }),
      7,
    ],
  ];
  console.log('attention kernels on models/tiny-swa (FP8 KV, bf16 math, SIMD matmuls, one thread; ms per engine.forward step, best of 3):');
  for (const [name, backendFor, k] of settings)
    for (const n of [1, 16]) {
      const best = { js: { ms: Infinity, attentionMs: Infinity, steps: 0 }, 'wasm-simd': { ms: Infinity, attentionMs: Infinity, steps: 0 } };
      const ids: Record<string, string> = {};
      for (let rep = 0; rep < 4; rep++)
        for (const kernels of ['js', 'wasm-simd'] as const) {
          const r = servingRun(backendFor(kernels), k, n);
          ids[kernels] = JSON.stringify(r.ids);
          if (rep === 0) continue; // warm-up
          const b = best[kernels];
          b.ms = Math.min(b.ms, r.ms);
          b.attentionMs = Math.min(b.attentionMs, r.attentionMs);
          b.steps = r.steps;
        }
      const { js, 'wasm-simd': simd } = best;
      console.log(
        `  ${name.padEnd(42)} ${String(n).padStart(2)} seq, ${String(simd.steps).padStart(3)} steps: attention JS ${js.attentionMs.toFixed(2)} → SIMD ${simd.attentionMs.toFixed(2)} ms/step` +
          ` (${(js.attentionMs / simd.attentionMs).toFixed(2)}× the JS kernel) | forward ${js.ms.toFixed(2)} → ${simd.ms.toFixed(2)} ms (${(js.ms / simd.ms).toFixed(2)}×)` +
          ` | tokens ${ids.js === ids['wasm-simd'] ? 'identical' : 'DIFFER'}`,
      );
    }
}

if (process.argv.includes('--attention-only')) {
  attentionRows();
  process.exit(0);
}
const anchor = anchorGflops();
const { total } = paramCount(config);
console.log(`engine bench: ${(total / 1e6).toFixed(2)}M parameters (d ${config.hiddenSize}, I ${config.intermediateSize}, ${config.numLayers} layers), prompt ${PROMPT}, decode ${DECODE}, bf16 math`);
console.log(`anchor: plain JS float32 matvec ${anchor.toFixed(2)} GFLOP/s (same run)`);
const flashinfer = () => createFlashinferBackend({ bookkeeping: 'fixed', faultModel: null, disableQQuantization: false, useTrtllmAttention: null });
const results = [
  measure('JS kernels, reference attn, bf16 KV, paged', createReferenceBackend(), 'bf16', 'paged', 'js'),
  measure('SIMD kernels, reference attn, bf16 KV, paged', createReferenceBackend(), 'bf16', 'paged', 'wasm-simd'),
  measure('SIMD kernels, reference attn, bf16 KV, contiguous', createReferenceBackend(), 'bf16', 'contiguous', 'wasm-simd'),
  measure('SIMD kernels, flashinfer sm100, fp8 KV, paged', flashinfer(), 'fp8_e4m3', 'paged', 'wasm-simd'),
];
for (const r of results)
  console.log(
    `${r.name.padEnd(52)} prefill ${r.prefillTps.toFixed(0).padStart(5)} tok/s ${r.prefillGflops.toFixed(2)} GFLOP/s (${(r.prefillGflops / anchor).toFixed(2)}× anchor)` +
      ` | decode ${r.decodeTps.toFixed(0).padStart(5)} tok/s ${r.decodeGflops.toFixed(2)} GFLOP/s (${(r.decodeGflops / anchor).toFixed(2)}× anchor)`,
  );
const best = Math.max(...results.map((r) => r.decodeTps));
console.log(`decode target ≥ 300 tok/s: ${best >= 300 ? 'met' : 'NOT met'} (best ${best.toFixed(0)} tok/s)`);
attentionRows();
