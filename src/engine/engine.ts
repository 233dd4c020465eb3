/**
 * The engine step API: what generate, speculative decoding and a batching server build on.
 *
 *   const engine = new Engine(model, options);
 *   const [a, b] = engine.forward([{ seqId: 1, tokens: prompt }, { seqId: 2, tokens: [t0, d1, d2] }]);
 *   // a.logits: [prompt.length, V], b.logits: [3, V] — one row per new token
 *   engine.rollback(2, len);   // drop rejected drafts
 *   engine.release(1);         // free the sequence's cache
 *
 * Each call appends the new tokens to their sequences' KV cache and returns logits (and the
 * pre-norm hidden state, for MTP) for every new row. As in vLLM's FlashInfer backend, a step is
 * split into a decode slice (requests with the same, small query length — spec-as-decode when
 * that length is > 1) and a prefill slice; the attention backend sees which slice it runs.
 *
 * With `parallel.threads = 2` a worker thread holds a second copy of the engine (worker-shard.ts):
 * each sequence is assigned to one of the two on its first step (the one with fewer live sequences)
 * and stays there; a step runs both parts at once. Rows never interact (batch invariance), so the
 * results are bit-identical to one thread; the phases are decided over the whole step first.
 */
import { UserError } from '../core/errors.js';
import { smScale, windowLeft } from './config.js';
import type { AttentionBackend, AttentionLayer, AttentionPhase, AttentionRequest } from './attention/backend.js';
import { layerDtype, type KvCache, type KvCacheSpec, type KvDtype } from './kv-cache/cache.js';
import { ContiguousKvCache } from './kv-cache/contiguous.js';
import { PagedKvCache } from './kv-cache/paged.js';
import { buildRopeTables, forward, mtpStep, RunState, type Model, type Precision } from './model.js';
import { accelerate } from './wasm/accelerate.js';
import { batchVariantMatmul, jsPartialMatmul } from './batch-variant.js';
import type { AttentionSettings } from './emulate.js';
import { matmul as jsMatmul, type RopeTable } from './ops.js';
import { toShardAttention } from './shard-protocol.js';
import { ThreadSplit } from './thread-split.js';

/** vLLM keeps a skipped layer's cache "auto", i.e. the model dtype: BF16 here, float32 in exact mode. */
function skippedLayerDtypes(numLayers: number, o: EngineOptions): { layerDtypes?: KvDtype[] } {
  const skip = o.kvSkipLayers ?? [];
  if (skip.length === 0 || o.kvDtype !== 'fp8_e4m3') return {};
  const unquantized: KvDtype = o.precision === 'bf16' ? 'bf16' : 'fp32';
  return { layerDtypes: Array.from({ length: numLayers }, (_, l) => (skip.includes(l) ? unquantized : o.kvDtype)) };
}

export interface EngineOptions {
  precision: Precision;
  kvDtype: KvDtype;
  /** Layers whose KV cache stays in the model dtype although kvDtype is FP8 (vLLM's --kv-cache-dtype-skip-layers). */
  kvSkipLayers?: readonly number[];
  /** Tokens per KV block: 16, 32 or 64. */
  pageSize: number;
  cacheKind: 'paged' | 'contiguous';
  /** Paged cache budget in blocks (default: 8 sequences of max_position_embeddings). */
  numBlocks?: number;
  backend: AttentionBackend;
  /**
   * Speculative tokens per step (k). Requests with up to 1 + k new tokens run on the decode path
   * when the backend supports spec-as-decode (vLLM's reorder_batch_threshold); default 0.
   */
  numSpeculativeTokens?: number;
  /**
   * Matmul kernels: 'wasm-simd' (default where available: float32 SIMD accumulation, ~2.5× faster)
   * or 'js' (float64 accumulation; the exact mode uses it). Both are batch-invariant.
   */
  kernels?: 'js' | 'wasm-simd';
  /**
   * Make the matmuls' reduction order depend on the number of rows in the step (batch-variant.ts):
   * the tiny, batch-dependent differences real servers show. Default false: batch-invariant.
   */
  batchVariantNumerics?: boolean;
  /**
   * Run steps on two threads (data-parallel: a worker thread takes about half the sequences). Off
   * with batch-variant numerics (its reduction order follows the whole step's row count) and with a
   * fault model a worker cannot rebuild. Call close() to end the thread (it never keeps the process alive).
   */
  parallel?: ParallelOptions;
}

export interface ParallelOptions {
  /** 1: this thread only; 2: this thread and one worker thread. */
  threads: number;
  /** The settings `backend` was built from: the worker builds its own backend from them. */
  attention: AttentionSettings;
}

export interface StepRequest {
  seqId: number;
  tokens: readonly number[];
}

export interface StepResult {
  seqId: number;
  rows: number;
  logits: Float32Array; // [rows, V]
  hidden: Float32Array; // [rows, d] before the final norm
  phase: AttentionPhase;
}

/**
 * vLLM's split_decodes_and_prefills with require_uniform: requests with at most `threshold` new
 * tokens and the same query length as the first such request form the decode slice; the rest prefill.
 */
export function splitDecodesAndPrefills(qLens: readonly number[], threshold: number): { decode: number[]; qLenPerReq: number; prefill: number[] } {
  const first = qLens.findIndex((n) => n <= threshold);
  const qLenPerReq = first < 0 ? 0 : qLens[first];
  const decode: number[] = [];
  const prefill: number[] = [];
  qLens.forEach((n, i) => (first >= 0 && n === qLenPerReq ? decode : prefill).push(i));
  return { decode, qLenPerReq, prefill };
}

export class Engine {
  readonly cache: KvCache;
  private readonly state: RunState;
  private readonly rope: Map<number, RopeTable>;
  private readonly decodeThreshold: number;
  /** The model the forward runs on (weights possibly moved into WebAssembly memory). */
  private readonly compute: Model;
  /** Which matmul kernels are in use ('wasm-simd' falls back to 'js' where SIMD is unavailable). */
  readonly kernels: 'js' | 'wasm-simd';
  /** The two-thread split (parallel.threads = 2; thread-split.ts), or null: one thread. */
  private readonly split: ThreadSplit | null;

  constructor(
    readonly model: Model,
    readonly options: EngineOptions,
  ) {
    const c = model.config;
    const spec: KvCacheSpec = {
      numLayers: c.numLayers,
      numKvHeads: c.numKvHeads,
      headDim: c.headDim,
      dtype: options.kvDtype,
      pageSize: options.pageSize,
      scales: model.weights.scales.map((s) => ({ k: s.k, v: s.v })),
      ...skippedLayerDtypes(c.numLayers, options),
    };
    const numBlocks = options.numBlocks ?? 8 * Math.ceil(c.maxPositions / options.pageSize);
    this.cache = options.cacheKind === 'paged' ? new PagedKvCache(spec, numBlocks) : new ContiguousKvCache(spec);
    const fast = (options.kernels ?? 'wasm-simd') === 'wasm-simd' ? accelerate(model) : null;
    this.compute = fast?.model ?? model;
    this.kernels = fast ? 'wasm-simd' : 'js';
    this.state = new RunState(c, options.batchVariantNumerics ? batchVariantMatmul(fast?.matmul ?? jsMatmul, fast?.partialMatmul ?? jsPartialMatmul) : fast?.matmul, fast?.arena ?? null);
    this.rope = buildRopeTables(c, options.precision);
    const k = options.numSpeculativeTokens ?? 0;
    this.decodeThreshold = options.backend.supportsSpecAsDecode ? 1 + k : 1;
    const p = options.parallel;
    const attention = p && p.threads >= 2 && !options.batchVariantNumerics ? toShardAttention(p.attention) : null;
    const { backend: _backend, parallel: _parallel, ...shardOptions } = options;
    this.split = attention ? new ThreadSplit(this, model, shardOptions, attention) : null;
  }

  length(seqId: number): number {
    return this.split?.length(seqId) ?? this.cache.length(seqId);
  }

  /** Keep the first `len` tokens of a sequence (e.g. drop rejected drafts). */
  rollback(seqId: number, len: number): void {
    if (!this.split?.rollback(seqId, len)) this.cache.truncate(seqId, len);
  }

  release(seqId: number): void {
    if (!this.split?.release(seqId)) this.cache.free(seqId);
  }

  /**
   * Starts the worker thread when `parallel.threads` is 2 (idempotent); resolves true once it takes
   * work, false when this engine runs on one thread. Steps never wait for it: until it is ready every
   * sequence runs here.
   */
  startThreads(): Promise<boolean> {
    return this.split?.start() ?? Promise.resolve(false);
  }

  /** Live sequences on this thread and in the worker (parallel engines; tests and metrics). */
  sequencesPerThread(): { here: number; worker: number } {
    return this.split?.counts() ?? { here: 0, worker: 0 };
  }

  /** Ends the worker thread, if any (its sequences are gone; this engine keeps running on one thread). */
  async close(): Promise<void> {
    await this.split?.close();
  }

  forward(batch: readonly StepRequest[]): StepResult[] {
    this.validate(batch);
    const { decode, qLenPerReq } = this.phases(batch);
    if (!this.split) return this.forwardPhased(batch, decode, qLenPerReq);
    if (batch.length >= 2 && !this.split.started) void this.startThreads();
    return this.split.forward(batch, decode, qLenPerReq);
  }

  /**
   * Announces the next step (as far as the caller knows it): a two-thread engine starts the worker's
   * part now, so it runs while this thread does other work; forward() uses it where the step turns out
   * the same. A no-op on one thread; never required.
   */
  prefetch(batch: readonly StepRequest[]): void {
    if (!this.split || batch.length === 0) return;
    try {
      this.validate(batch);
    } catch {
      return; // forward() will report it
    }
    const { decode, qLenPerReq } = this.phases(batch);
    this.split.prefetch(batch, decode, qLenPerReq);
  }

  /** Prefetched worker requests a step used or threw away (two-thread engines; tests and metrics). */
  prefetchCounters(): { used: number; dropped: number } {
    return { ...(this.split?.prefetched ?? { used: 0, dropped: 0 }) };
  }

  /** Whether prefetch() can do anything now (a worker thread holds sequences). */
  get prefetches(): boolean {
    return (this.split?.counts().worker ?? 0) > 0;
  }

  /** The decode / prefill split of a whole step (vLLM's split_decodes_and_prefills with require_uniform). */
  private phases(batch: readonly StepRequest[]): { decode: boolean[]; qLenPerReq: number } {
    const split = splitDecodesAndPrefills(
      batch.map((r) => r.tokens.length),
      this.decodeThreshold,
    );
    const decode = batch.map(() => false);
    for (const i of split.decode) decode[i] = true;
    return { decode, qLenPerReq: split.qLenPerReq };
  }

  /**
   * One thread's part of a step, without validation: `decode[i]` says whether request i runs in the
   * decode slice (with `qLenPerReq` rows each) or the prefill slice, as decided over the whole step.
   */
  forwardPhased(batch: readonly StepRequest[], decode: readonly boolean[], qLenPerReq: number): StepResult[] {
    const c = this.model.config;
    const rows = batch.reduce((n, r) => n + r.tokens.length, 0);
    const tokens = new Int32Array(rows), positions = new Int32Array(rows), seqIds = new Int32Array(rows);
    const starts: number[] = [];
    const before = batch.map((r) => this.cache.length(r.seqId));
    try {
      batch.forEach((req, i) => this.cache.extend(req.seqId, before[i] + req.tokens.length));
    } catch (e) {
      // out of blocks: leave every sequence as it was before this step
      batch.forEach((req, i) => this.cache.length(req.seqId) > before[i] && this.cache.truncate(req.seqId, before[i]));
      throw e;
    }
    let row = 0;
    for (const [i, req] of batch.entries()) {
      const start = before[i];
      starts.push(row);
      req.tokens.forEach((t, i) => {
        tokens[row] = t;
        positions[row] = start + i;
        seqIds[row] = req.seqId;
        row++;
      });
    }
    const decodeIdx = batch.flatMap((_, i) => (decode[i] ? [i] : []));
    const prefillIdx = batch.flatMap((_, i) => (decode[i] ? [] : [i]));
    const decodePhase: AttentionPhase = { kind: 'decode', qLenPerReq };
    const prefillPhase: AttentionPhase = { kind: 'prefill' };
    const attend = (layer: number, q: Float32Array, out: Float32Array) => {
      const params = this.layerParams(layer);
      const group = (indices: number[]): AttentionRequest[] =>
        indices.map((i) => ({
          view: this.cache.view(layer, batch[i].seqId),
          seqLen: this.cache.length(batch[i].seqId),
          qLen: batch[i].tokens.length,
          rowStart: starts[i],
        }));
      if (decodeIdx.length) this.options.backend.run(q, out, group(decodeIdx), params, decodePhase);
      if (prefillIdx.length) this.options.backend.run(q, out, group(prefillIdx), params, prefillPhase);
    };
    const out = forward(this.compute, this.state, { rows, tokens, positions, seqIds }, this.cache, attend, this.rope, this.options.precision);
    const { vocabSize: V, hiddenSize: d } = c;
    return batch.map((req, i) => ({
      seqId: req.seqId,
      rows: req.tokens.length,
      logits: out.logits.subarray(starts[i] * V, (starts[i] + req.tokens.length) * V),
      hidden: out.hidden.subarray(starts[i] * d, (starts[i] + req.tokens.length) * d),
      phase: decode[i] ? decodePhase : prefillPhase,
    }));
  }

  /** One MTP draft step (model.ts mtpStep) with this engine's kernels and precision; null without an MTP head. */
  mtpStep(hidden: Float32Array, nextToken: number): { logits: Float32Array; g: Float32Array } | null {
    const mtp = this.compute.weights.mtp;
    return mtp ? mtpStep(this.compute, mtp, hidden, nextToken, this.options.precision, this.state.matmul) : null;
  }

  private layerParams(layer: number): AttentionLayer {
    const c = this.model.config;
    return {
      index: layer,
      numHeads: c.numHeads,
      numKvHeads: c.numKvHeads,
      headDim: c.headDim,
      windowLeft: windowLeft(c, layer),
      smScale: smScale(c),
      scales: this.model.weights.scales[layer],
      kvDtype: layerDtype(this.cache.spec, layer),
      pageSize: this.options.pageSize,
    };
  }

  private validate(batch: readonly StepRequest[]): void {
    const c = this.model.config;
    const seen = new Set<number>();
    for (const req of batch) {
      if (seen.has(req.seqId)) throw new RangeError(`sequence ${req.seqId} appears twice in one step`);
      seen.add(req.seqId);
      if (req.tokens.length === 0) throw new RangeError(`sequence ${req.seqId}: a step needs at least one token`);
      for (const t of req.tokens)
        if (!Number.isInteger(t) || t < 0 || t >= c.vocabSize)
          throw new UserError(`token id ${t} is outside the vocabulary (0..${c.vocabSize - 1})`, { code: 'E_TOKEN_ID' });
      const end = this.length(req.seqId) + req.tokens.length;
      if (end > c.maxPositions)
        throw new UserError(`sequence ${req.seqId} would reach ${end} tokens; the model's max_position_embeddings is ${c.maxPositions}`, {
          code: 'E_CONTEXT_LENGTH',
          hint: 'use a shorter prompt or fewer --max-tokens',
        });
    }
  }
}
