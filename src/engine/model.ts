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
import type { LayerWeights, MtpWeights, Weights } from './weights.js';

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
  pair: Float32Array; // [2d] the MTP head's [hnorm(h) ‖ enorm(e)]
}

/** Floats per row of each scratch array. */
export function runBufferWidths(c: ModelConfig): Record<keyof RunBuffers, number> {
  const { hiddenSize: d, numHeads: hq, numKvHeads: hkv, headDim: hd, intermediateSize: I, vocabSize: V } = c;
  return { x: d, xb: d, xb2: d, q: hq * hd, k: hkv * hd, v: hkv * hd, att: hq * hd, gate: I, up: I, logits: V, pair: 2 * d };
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
  pair: Float32Array = new Float32Array(0);
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
    ({ x: this.x, xb: this.xb, xb2: this.xb2, q: this.q, k: this.k, v: this.v, att: this.att, gate: this.gate, up: this.up, logits: this.logits, pair: this.pair } = b);
    this.rows = rows;
  }
}

/** The RoPE table of every layer (one per base, shared), built once per (model, precision). */
export function buildRopeTables(c: ModelConfig, precision: Precision): RopeTable[] {
  const byTheta = new Map<number, RopeTable>();
  return Array.from({ length: c.numLayers }, (_, l) => {
    const theta = ropeThetaFor(c, l);
    if (!byTheta.has(theta)) byTheta.set(theta, buildRopeTable(theta, c.headDim, c.maxPositions, precision === 'bf16'));
    return byTheta.get(theta)!;
  });
}

export interface ForwardOutput {
  logits: Float32Array; // [rows, V]
  hidden: Float32Array; // [rows, d] residual stream after the last layer, before the final norm (MTP input)
}

/** How a precision stores a tensor between kernels (bf16: RNE rounding of the first `len` values). */
interface Storage {
  store(a: Float32Array, len: number): void;
  /** GeGLU on a stored gate (bf16: from the table of BF16 gates, ops.gegluBf16). */
  geglu(gate: Float32Array, up: Float32Array, len: number): void;
  /** √d as the model dtype holds it (Gemma casts the scale to the weight dtype). */
  embedScale(d: number): number;
}

/** f(d) computed once per width d: the embedding scale is a constant of the model, not of the step. */
function perWidth(f: (d: number) => number): (d: number) => number {
  const memo = new Map<number, number>();
  return (d) => {
    let v = memo.get(d);
    if (v === undefined) memo.set(d, (v = f(d)));
    return v;
  };
}

const BF16_STORAGE: Storage = { store: roundBf16, geglu: gegluBf16, embedScale: perWidth((d) => roundToBf16(Math.sqrt(d))) };
const FP32_STORAGE: Storage = { store: () => {}, geglu, embedScale: (d) => Math.fround(Math.sqrt(d)) };

function storage(precision: Precision): Storage {
  return precision === 'bf16' ? BF16_STORAGE : FP32_STORAGE;
}

/** The weights of a GeGLU MLP block with its two norms (a decoder layer's and the MTP head's). */
type MlpWeights = Pick<LayerWeights, 'preFfnNorm' | 'wGate' | 'wUp' | 'wDown' | 'postFfnNorm'>;

/** x[r] = embed[token r] · √d for n rows. */
function embed(model: Model, s: RunState, tokens: ArrayLike<number>, n: number, st: Storage): void {
  const d = model.config.hiddenSize;
  const scale = st.embedScale(d);
  for (let r = 0; r < n; r++) {
    const e = tokens[r] * d;
    for (let i = 0; i < d; i++) s.x[r * d + i] = model.weights.embed[e + i] * scale;
  }
  st.store(s.x, n * d);
}

/** The MLP block on s.x: x = x + post_ffw_norm(down(gelu_tanh(gate(m)) · up(m))), m = pre_ffw_norm(x). */
function mlpBlock(c: ModelConfig, s: RunState, w: MlpWeights, n: number, st: Storage): void {
  const { hiddenSize: d, intermediateSize: I, rmsNormEps: eps } = c;
  rmsNorm(s.xb, s.x, w.preFfnNorm, n, d, eps);
  st.store(s.xb, n * d);
  s.matmul(s.gate, s.xb, w.wGate, n, d, I);
  s.matmul(s.up, s.xb, w.wUp, n, d, I);
  st.store(s.gate, n * I);
  st.store(s.up, n * I);
  st.geglu(s.gate, s.up, n * I);
  st.store(s.gate, n * I);
  s.matmul(s.xb2, s.gate, w.wDown, n, I, d);
  st.store(s.xb2, n * d);
  rmsNorm(s.xb2, s.xb2, w.postFfnNorm, n, d, eps);
  st.store(s.xb2, n * d);
  addInPlace(s.x, s.xb2, n * d);
  st.store(s.x, n * d);
}

/** The attention block on s.x: x = x + post_attn_norm(o_proj(attn(rope(qk_norm(qkv(input_norm(x))))))), K/V written first. */
function attentionBlock(model: Model, s: RunState, l: number, batch: ForwardBatch, kv: KvCache, attend: AttendFn, rope: readonly RopeTable[], st: Storage): void {
  const c = model.config;
  const lw = model.weights.layers[l];
  const n = batch.rows;
  const { hiddenSize: d, numHeads: hq, numKvHeads: hkv, headDim: hd, rmsNormEps: eps } = c;
  rmsNorm(s.xb, s.x, lw.inputNorm, n, d, eps);
  st.store(s.xb, n * d);
  s.matmul(s.q, s.xb, lw.wq, n, d, hq * hd);
  s.matmul(s.k, s.xb, lw.wk, n, d, hkv * hd);
  s.matmul(s.v, s.xb, lw.wv, n, d, hkv * hd);
  st.store(s.q, n * hq * hd);
  st.store(s.k, n * hkv * hd);
  st.store(s.v, n * hkv * hd);
  rmsNorm(s.q, s.q, lw.qNorm, n * hq, hd, eps); // QK-norm per head, before RoPE
  rmsNorm(s.k, s.k, lw.kNorm, n * hkv, hd, eps);
  st.store(s.q, n * hq * hd);
  st.store(s.k, n * hkv * hd);
  const table = rope[l];
  applyRope(s.q, batch.positions, n, hq, table);
  applyRope(s.k, batch.positions, n, hkv, table);
  st.store(s.q, n * hq * hd);
  st.store(s.k, n * hkv * hd);
  for (let r = 0; r < n; r++) kv.write(l, batch.seqIds[r], batch.positions[r], s.k, r * hkv * hd, s.v, r * hkv * hd);
  attend(l, s.q, s.att);
  st.store(s.att, n * hq * hd);
  s.matmul(s.xb2, s.att, lw.wo, n, hq * hd, d);
  st.store(s.xb2, n * d);
  rmsNorm(s.xb2, s.xb2, lw.postAttnNorm, n, d, eps);
  st.store(s.xb2, n * d);
  addInPlace(s.x, s.xb2, n * d);
  st.store(s.x, n * d);
}

/** logits [n, V] = softcap(norm(x) · embedᵀ) (tied head, no √d), each stored as the precision stores it. */
function outputHead(model: Model, s: RunState, norm: Float32Array, n: number, st: Storage): Float32Array {
  const { hiddenSize: d, vocabSize: V, rmsNormEps: eps, finalLogitSoftcap: cap } = model.config;
  rmsNorm(s.xb, s.x, norm, n, d, eps);
  st.store(s.xb, n * d);
  const logits = new Float32Array(n * V);
  s.matmul(logits, s.xb, model.weights.embed, n, d, V);
  st.store(logits, n * V);
  if (cap !== null) {
    softcap(logits, cap, n * V);
    st.store(logits, n * V);
  }
  return logits;
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
  rope: readonly RopeTable[],
  precision: Precision,
): ForwardOutput {
  const st = storage(precision);
  const n = batch.rows;
  s.ensure(n);
  embed(model, s, batch.tokens, n, st);
  for (let l = 0; l < model.config.numLayers; l++) {
    attentionBlock(model, s, l, batch, kv, attend, rope, st);
    mlpBlock(model.config, s, model.weights.layers[l], n, st);
  }
  const hidden = s.x.slice(0, n * model.config.hiddenSize);
  return { logits: outputHead(model, s, model.weights.finalNorm, n, st), hidden };
}

/**
 * One MTP draft step (docs/model-format.md): from the main model's hidden state h_t (before the
 * final norm) and token t+1, the logits for token t+2 and g, which stands in for h_{t+1} when
 * chaining the next draft. No attention, no cache. h: [d]. The MLP block and the output head are
 * the forward's, on the same scratch buffers.
 */
export function mtpStep(
  model: Model,
  mtp: MtpWeights,
  h: Float32Array,
  nextToken: number,
  precision: Precision,
  s: RunState = new RunState(model.config),
): { logits: Float32Array; g: Float32Array } {
  const st = storage(precision);
  const { hiddenSize: d, rmsNormEps: eps } = model.config;
  s.ensure(1);
  embed(model, s, [nextToken], 1, st);
  // u = eh_proj([hnorm(h) ‖ enorm(e)]) is the block's residual stream
  rmsNorm(s.pair, h, mtp.hnorm, 1, d, eps);
  rmsNorm(s.pair.subarray(d), s.x, mtp.enorm, 1, d, eps);
  st.store(s.pair, 2 * d);
  s.matmul(s.x, s.pair, mtp.ehProj, 1, 2 * d, d);
  st.store(s.x, d);
  mlpBlock(model.config, s, mtp, 1, st);
  const g = s.x.slice(0, d);
  return { logits: outputHead(model, s, mtp.norm, 1, st), g };
}
