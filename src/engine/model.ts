/**
 * The model (docs/model-format.md) and its forward pass, top to bottom, llama2.c style:
 * Config + Weights in, a RunState of scratch buffers, one function that walks the layers.
 *
 * A forward processes `rows` new tokens from any number of sequences at once. Every row is
 * computed independently of the others (same loops, same order), so a token's result does not
 * depend on what else is in the batch — the property speculative decoding's "spec ≡ plain"
 * check and batched serving rely on.
 *
 * Precision:
 * - 'fp32': float32 storage, float64 arithmetic inside kernels; no rounding beyond float32
 *   (the golden-logit check against PyTorch fp32).
 * - 'bf16': serving-like. Each tensor a BF16 serving stack writes between kernels is rounded to
 *   BF16 where it is written (`store` below; the list is in engine/README.md).
 */
import { roundToBf16 } from '../numerics/bf16.js';
import { ropeThetaFor, type ModelConfig } from './config.js';
import type { KvCache } from './kv-cache/cache.js';
import { addInPlace, applyRope, buildRopeTable, geglu, gegluBf16, matmul as jsMatmul, rmsNorm, roundBf16, softcap, type MatmulFn, type RopeTable } from './ops.js';
import type { MtpWeights, Weights } from './weights.js';

export type Precision = 'fp32' | 'bf16';

export interface Model {
  config: ModelConfig;
  weights: Weights;
}

/** The new rows of one forward: which sequence each row belongs to and where it sits. */
export interface ForwardBatch {
  rows: number;
  tokens: Int32Array; // [rows]
  positions: Int32Array; // [rows] absolute positions (0 = BOS)
  seqIds: Int32Array; // [rows]
}

/** Runs one layer's attention for all rows: q [rows, Hq, hd] → out [rows, Hq, hd] (K/V are already in the cache). */
export type AttendFn = (layer: number, q: Float32Array, out: Float32Array) => void;

/** The scratch arrays of a forward, each [rows, per-row width]. */
export interface RunBuffers {
  x: Float32Array; // [d] residual stream
  xb: Float32Array; // [d] normed input of a block
  xb2: Float32Array; // [d] block output before the residual add
  q: Float32Array; // [Hq*hd]
  k: Float32Array; // [Hkv*hd]
  v: Float32Array; // [Hkv*hd]
  att: Float32Array; // [Hq*hd] attention output
  gate: Float32Array; // [I]
  up: Float32Array; // [I]
  logits: Float32Array; // [V]
}

/** Floats per row of each scratch array. */
export function runBufferWidths(c: ModelConfig): Record<keyof RunBuffers, number> {
  const { hiddenSize: d, numHeads: hq, numKvHeads: hkv, headDim: hd, intermediateSize: I, vocabSize: V } = c;
  return { x: d, xb: d, xb2: d, q: hq * hd, k: hkv * hd, v: hkv * hd, att: hq * hd, gate: I, up: I, logits: V };
}

/** Scratch arrays for a fixed number of rows living in the matmul kernel's memory (no copies around it). */
export interface ScratchArena {
  rows: number;
  buffers: RunBuffers;
}

/**
 * Scratch buffers of the forward. Steps of up to `arena.rows` rows use the arena (views into the
 * SIMD kernel's memory, shared by every RunState of the model on this thread: a forward's scratch is
 * dead once it returns); larger ones use arrays on the JS heap, grown, never shrunk.
 */
export class RunState implements RunBuffers {
  rows = 0;
  x: Float32Array = new Float32Array(0);
  xb: Float32Array = new Float32Array(0);
  xb2: Float32Array = new Float32Array(0);
  q: Float32Array = new Float32Array(0);
  k: Float32Array = new Float32Array(0);
  v: Float32Array = new Float32Array(0);
  att: Float32Array = new Float32Array(0);
  gate: Float32Array = new Float32Array(0);
  up: Float32Array = new Float32Array(0);
  logits: Float32Array = new Float32Array(0);
  private heap: RunBuffers | null = null;
  private heapRows = 0;

  /** The matmul kernel every projection of this state's forward passes use. */
  constructor(
    private readonly c: ModelConfig,
    readonly matmul: MatmulFn = jsMatmul,
    private readonly arena: ScratchArena | null = null,
  ) {}

  ensure(rows: number): void {
    if (this.arena && rows <= this.arena.rows) return this.use(this.arena.buffers, this.arena.rows);
    if (rows > this.heapRows) {
      const widths = runBufferWidths(this.c);
      this.heap = Object.fromEntries(Object.entries(widths).map(([k, w]) => [k, new Float32Array(rows * w)])) as unknown as RunBuffers;
      this.heapRows = rows;
    }
    this.use(this.heap!, this.heapRows);
  }

  private use(b: RunBuffers, rows: number): void {
    if (this.x === b.x) return;
    ({ x: this.x, xb: this.xb, xb2: this.xb2, q: this.q, k: this.k, v: this.v, att: this.att, gate: this.gate, up: this.up, logits: this.logits } = b);
    this.rows = rows;
  }
}

/** RoPE tables per base, built once per (model, precision). */
export function buildRopeTables(c: ModelConfig, precision: Precision): Map<number, RopeTable> {
  const tables = new Map<number, RopeTable>();
  for (let l = 0; l < c.numLayers; l++) {
    const theta = ropeThetaFor(c, l);
    if (!tables.has(theta)) tables.set(theta, buildRopeTable(theta, c.headDim, c.maxPositions, precision === 'bf16'));
  }
  return tables;
}

export interface ForwardOutput {
  logits: Float32Array; // [rows, V]
  hidden: Float32Array; // [rows, d] residual stream after the last layer, before the final norm (MTP input)
}

/**
 * The forward pass over `batch.rows` new tokens. K/V of every row are written to `kv` before
 * `attend` runs (as vLLM does), so a row can attend to itself and to earlier rows of its sequence.
 * The caller must have extended every sequence's cache to cover the new positions.
 */
export function forward(
  model: Model,
  s: RunState,
  batch: ForwardBatch,
  kv: KvCache,
  attend: AttendFn,
  rope: Map<number, RopeTable>,
  precision: Precision,
): ForwardOutput {
  const { config: c, weights: w } = model;
  const n = batch.rows;
  const { hiddenSize: d, numHeads: hq, numKvHeads: hkv, headDim: hd, intermediateSize: I, vocabSize: V, rmsNormEps: eps } = c;
  const store = precision === 'bf16' ? (a: Float32Array, len: number) => roundBf16(a, len) : () => {};
  // the gate is stored as BF16 before the activation in bf16 mode: a table lookup gives the same activation
  const gegluStored = precision === 'bf16' ? gegluBf16 : geglu;
  s.ensure(n);
  const matmul = s.matmul;

  // embedding · √d (the scale itself is cast to the model dtype first, as in Gemma)
  const scale = precision === 'bf16' ? roundToBf16(Math.sqrt(d)) : Math.fround(Math.sqrt(d));
  for (let r = 0; r < n; r++) {
    const e = batch.tokens[r] * d;
    for (let i = 0; i < d; i++) s.x[r * d + i] = w.embed[e + i] * scale;
  }
  store(s.x, n * d);

  for (let l = 0; l < c.numLayers; l++) {
    const lw = w.layers[l];
    // attention block: h = x + post_attn_norm(o_proj(attn(input_norm(x))))
    rmsNorm(s.xb, s.x, lw.inputNorm, n, d, eps);
    store(s.xb, n * d);
    matmul(s.q, s.xb, lw.wq, n, d, hq * hd);
    matmul(s.k, s.xb, lw.wk, n, d, hkv * hd);
    matmul(s.v, s.xb, lw.wv, n, d, hkv * hd);
    store(s.q, n * hq * hd);
    store(s.k, n * hkv * hd);
    store(s.v, n * hkv * hd);
    rmsNorm(s.q, s.q, lw.qNorm, n * hq, hd, eps); // QK-norm per head, before RoPE
    rmsNorm(s.k, s.k, lw.kNorm, n * hkv, hd, eps);
    store(s.q, n * hq * hd);
    store(s.k, n * hkv * hd);
    const table = rope.get(ropeThetaFor(c, l))!;
    applyRope(s.q, batch.positions, n, hq, table);
    applyRope(s.k, batch.positions, n, hkv, table);
    store(s.q, n * hq * hd);
    store(s.k, n * hkv * hd);
    for (let r = 0; r < n; r++) kv.write(l, batch.seqIds[r], batch.positions[r], s.k, r * hkv * hd, s.v, r * hkv * hd);
    attend(l, s.q, s.att);
    store(s.att, n * hq * hd);
    matmul(s.xb2, s.att, lw.wo, n, hq * hd, d);
    store(s.xb2, n * d);
    rmsNorm(s.xb2, s.xb2, lw.postAttnNorm, n, d, eps);
    store(s.xb2, n * d);
    addInPlace(s.x, s.xb2, n * d);
    store(s.x, n * d);

    // MLP block: out = h + post_ffw_norm(down(gelu_tanh(gate(m)) · up(m))), m = pre_ffw_norm(h)
    rmsNorm(s.xb, s.x, lw.preFfnNorm, n, d, eps);
    store(s.xb, n * d);
    matmul(s.gate, s.xb, lw.wGate, n, d, I);
    matmul(s.up, s.xb, lw.wUp, n, d, I);
    store(s.gate, n * I);
    store(s.up, n * I);
    gegluStored(s.gate, s.up, n * I);
    store(s.gate, n * I);
    matmul(s.xb2, s.gate, lw.wDown, n, I, d);
    store(s.xb2, n * d);
    rmsNorm(s.xb2, s.xb2, lw.postFfnNorm, n, d, eps);
    store(s.xb2, n * d);
    addInPlace(s.x, s.xb2, n * d);
    store(s.x, n * d);
  }

  const hidden = s.x.slice(0, n * d);
  // final norm, tied output head (no √d), optional soft-cap
  rmsNorm(s.xb, s.x, w.finalNorm, n, d, eps);
  store(s.xb, n * d);
  const logits = new Float32Array(n * V);
  matmul(logits, s.xb, w.embed, n, d, V);
  store(logits, n * V);
  if (c.finalLogitSoftcap !== null) {
    softcap(logits, c.finalLogitSoftcap, n * V);
    store(logits, n * V);
  }
  return { logits, hidden };
}

/**
 * One MTP draft step (docs/model-format.md): from the main model's hidden state h_t (before the
 * final norm) and token t+1, the logits for token t+2 and g, which stands in for h_{t+1} when
 * chaining the next draft. No attention, no cache. h: [d].
 */
export function mtpStep(
  model: Model,
  mtp: MtpWeights,
  h: Float32Array,
  nextToken: number,
  precision: Precision,
  matmul: MatmulFn = jsMatmul,
): { logits: Float32Array; g: Float32Array } {
  const { hiddenSize: d, intermediateSize: I, vocabSize: V, rmsNormEps: eps } = model.config;
  const store = precision === 'bf16' ? (a: Float32Array) => roundBf16(a, a.length) : () => {};
  const gegluStored = precision === 'bf16' ? gegluBf16 : geglu;
  const scale = precision === 'bf16' ? roundToBf16(Math.sqrt(d)) : Math.fround(Math.sqrt(d));
  const e = new Float32Array(d);
  for (let i = 0; i < d; i++) e[i] = model.weights.embed[nextToken * d + i] * scale;
  store(e);
  const cat = new Float32Array(2 * d); // [hnorm(h) ‖ enorm(e)]
  rmsNorm(cat.subarray(0, d), h, mtp.hnorm, 1, d, eps);
  rmsNorm(cat.subarray(d), e, mtp.enorm, 1, d, eps);
  store(cat);
  const u = new Float32Array(d);
  matmul(u, cat, mtp.ehProj, 1, 2 * d, d);
  store(u);
  const m = new Float32Array(d);
  rmsNorm(m, u, mtp.preFfnNorm, 1, d, eps);
  store(m);
  const gate = new Float32Array(I), up = new Float32Array(I);
  matmul(gate, m, mtp.wGate, 1, d, I);
  matmul(up, m, mtp.wUp, 1, d, I);
  store(gate);
  store(up);
  gegluStored(gate, up, I);
  store(gate);
  const g = new Float32Array(d);
  matmul(g, gate, mtp.wDown, 1, I, d);
  store(g);
  rmsNorm(g, g, mtp.postFfnNorm, 1, d, eps);
  store(g);
  addInPlace(g, u, d);
  store(g);
  const normed = new Float32Array(d);
  rmsNorm(normed, g, mtp.norm, 1, d, eps);
  store(normed);
  const logits = new Float32Array(V);
  matmul(logits, normed, model.weights.embed, 1, d, V);
  store(logits);
  if (model.config.finalLogitSoftcap !== null) softcap(logits, model.config.finalLogitSoftcap, V);
  return { logits, g };
}
