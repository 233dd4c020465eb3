/**
 * The single-threaded engine: one model, one KV cache, one attention backend, the step API of
 * step-engine.ts. A step extends every sequence's cache, lays the new rows out in one batch, splits
 * the requests into the decode and prefill slices, and runs model.ts `forward` over all rows at once
 * (each row computed as if alone: batch-invariant), calling the backend once per layer and slice.
 *
 *   const engine = new Engine(model, { precision: 'bf16', kvDtype: 'fp8_e4m3', pageSize: 16, cacheKind: 'paged', backend });
 *   const [r] = engine.forward([{ seqId: 1, tokens: prompt }]);
 */
import { smScale, windowLeft } from './config.js';
import type { AttentionBackend, AttentionLayer, AttentionPhase, AttentionRequest } from './attention/backend.js';
import { layerDtype, type KvCache, type KvCacheSpec, type KvDtype } from './kv-cache/cache.js';
import { ContiguousKvCache } from './kv-cache/contiguous.js';
import { PagedKvCache } from './kv-cache/paged.js';
import { modelKernels, type KernelPath } from './kernels.js';
import { buildRopeTables, forward, mtpStep, RunState, type Model, type Precision } from './model.js';
import type { RopeTable } from './ops.js';
import { UserError } from '../core/errors.js';
import type { StateFaults } from './state-faults.js';
import type { KvBlockSpace, StepEngine, StepPhases, StepRequest, StepResult } from './step-engine.js';

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
  /** Reuse cached blocks of shared prefixes across sequences (paged cache; vLLM's --enable-prefix-caching). */
  prefixCaching?: boolean;
  /** Stateful fault models of the KV cache (state-faults.ts); none by default. */
  stateFaults?: StateFaults;
  backend: AttentionBackend;
  /**
   * Speculative tokens per step (k). Requests with up to 1 + k new tokens run on the decode path
   * when the backend supports spec-as-decode (vLLM's reorder_batch_threshold); default 0.
   */
  numSpeculativeTokens?: number;
  /**
   * Matmul kernels (kernels.ts): the fastest this process has by default ('native', then 'wasm-simd':
   * float32, the same bits), or 'js' (float64 accumulation; the exact mode uses it). All are batch-invariant.
   */
  kernels?: KernelPath;
  /**
   * Make the matmuls' reduction order depend on the number of rows in the step (batch-variant.ts):
   * the tiny, batch-dependent differences real servers show. Default false: batch-invariant.
   */
  batchVariantNumerics?: boolean;
}

export class Engine implements StepEngine {
  readonly cache: KvCache;
  readonly numSpeculativeTokens: number;
  /** Which matmul kernels are in use (a path this process lacks falls back to the next: kernels.ts). */
  readonly kernels: KernelPath;
  private readonly state: RunState;
  private readonly rope: RopeTable[];
  private readonly decodeThreshold: number;
  /** The model the forward runs on (the weights as the kernels read them). */
  private readonly compute: Model;
  /** What the attention backend is told about each layer. */
  private readonly layers: AttentionLayer[];

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
    this.cache =
      options.cacheKind === 'paged' ? new PagedKvCache(spec, numBlocks, { prefixCaching: options.prefixCaching, faults: options.stateFaults }) : new ContiguousKvCache(spec);
    const kernels = modelKernels(model, options.kernels, options.batchVariantNumerics ?? false);
    this.compute = kernels.model;
    this.kernels = kernels.path;
    this.state = new RunState(c, kernels.matmul, kernels.arena);
    this.rope = buildRopeTables(c, options.precision);
    this.numSpeculativeTokens = options.numSpeculativeTokens ?? 0;
    this.decodeThreshold = options.backend.supportsSpecAsDecode ? 1 + this.numSpeculativeTokens : 1;
    this.layers = Array.from({ length: c.numLayers }, (_, l) => ({
      index: l,
      numHeads: c.numHeads,
      numKvHeads: c.numKvHeads,
      headDim: c.headDim,
      windowLeft: windowLeft(c, l),
      smScale: smScale(c),
      scales: model.weights.scales[l],
      kvDtype: layerDtype(spec, l),
      pageSize: options.pageSize,
    }));
  }

  length(seqId: number): number {
    return this.cache.length(seqId);
  }

  rollback(seqId: number, len: number): void {
    this.cache.truncate(seqId, len);
  }

  release(seqId: number, aborted = false): void {
    this.cache.free(seqId, aborted);
  }

  get kvBlocks(): KvBlockSpace | null {
    return this.cache instanceof PagedKvCache ? this.cache : null;
  }

  async close(): Promise<void> {}

  /** The decode / prefill split of a step (vLLM's split_decodes_and_prefills with require_uniform). */
  phases(batch: readonly StepRequest[]): StepPhases {
    return stepPhases(batch, this.decodeThreshold);
  }

  forward(batch: readonly StepRequest[], phases: StepPhases = this.phases(batch)): StepResult[] {
    validateStep(this.model, batch, (seqId) => this.cache.length(seqId));
    const c = this.model.config;
    const rows = batch.reduce((n, r) => n + r.tokens.length, 0);
    const tokens = new Int32Array(rows), positions = new Int32Array(rows), seqIds = new Int32Array(rows);
    const before = batch.map((r) => this.cache.length(r.seqId));
    this.extendAll(batch, before);
    const starts: number[] = [];
    let row = 0;
    batch.forEach((req, i) => {
      starts.push(row);
      req.tokens.forEach((t, j) => {
        tokens[row] = t;
        positions[row] = before[i] + j;
        seqIds[row] = req.seqId;
        row++;
      });
    });
    const decodePhase: AttentionPhase = { kind: 'decode', qLenPerReq: phases.qLenPerReq };
    const prefillPhase: AttentionPhase = { kind: 'prefill' };
    const slice = (decode: boolean) => batch.flatMap((_, i) => (phases.decode[i] === decode ? [i] : []));
    const slices: [number[], AttentionPhase][] = [
      [slice(true), decodePhase],
      [slice(false), prefillPhase],
    ];
    const attend = (layer: number, q: Float32Array, out: Float32Array) => {
      const params = this.layers[layer];
      for (const [indices, phase] of slices) {
        if (!indices.length) continue;
        const requests: AttentionRequest[] = indices.map((i) => ({ view: this.cache.view(layer, batch[i].seqId), seqLen: this.cache.length(batch[i].seqId), qLen: batch[i].tokens.length, rowStart: starts[i] }));
        this.options.backend.run(q, out, requests, params, phase);
      }
    };
    const out = forward(this.compute, this.state, { rows, tokens, positions, seqIds }, this.cache, attend, this.rope, this.options.precision);
    const { vocabSize: V, hiddenSize: d } = c;
    return batch.map((req, i) => ({
      seqId: req.seqId,
      rows: req.tokens.length,
      logits: out.logits.subarray(starts[i] * V, (starts[i] + req.tokens.length) * V),
      hidden: out.hidden.subarray(starts[i] * d, (starts[i] + req.tokens.length) * d),
      phase: phases.decode[i] ? decodePhase : prefillPhase,
    }));
  }

  /** Extends every sequence's cache for the step, or (out of blocks) leaves every sequence as it was and throws. */
  private extendAll(batch: readonly StepRequest[], before: number[]): void {
    try {
      batch.forEach((req, i) => this.cache.extend(req.seqId, before[i] + req.tokens.length));
    } catch (e) {
      batch.forEach((req, i) => this.cache.length(req.seqId) > before[i] && this.cache.truncate(req.seqId, before[i]));
      throw e;
    }
  }

  mtpStep(hidden: Float32Array, nextToken: number): { logits: Float32Array; g: Float32Array } | null {
    const mtp = this.compute.weights.mtp;
    return mtp ? mtpStep(this.compute, mtp, hidden, nextToken, this.options.precision, this.state) : null;
  }
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

/** The decode / prefill split of a whole step as per-request flags. */
export function stepPhases(batch: readonly StepRequest[], decodeThreshold: number): StepPhases {
  const split = splitDecodesAndPrefills(
    batch.map((r) => r.tokens.length),
    decodeThreshold,
  );
  const decode = batch.map(() => false);
  for (const i of split.decode) decode[i] = true;
  return { decode, qLenPerReq: split.qLenPerReq };
}

/** Rejects a malformed step before anything changes: duplicate or empty requests, unknown token ids, overlong sequences. */
export function validateStep(model: Model, batch: readonly StepRequest[], length: (seqId: number) => number): void {
  const c = model.config;
  const seen = new Set<number>();
  for (const req of batch) {
    if (seen.has(req.seqId)) throw new RangeError(`sequence ${req.seqId} appears twice in one step`);
    seen.add(req.seqId);
    if (req.tokens.length === 0) throw new RangeError(`sequence ${req.seqId}: a step needs at least one token`);
    for (const t of req.tokens)
      if (!Number.isInteger(t) || t < 0 || t >= c.vocabSize) throw new UserError(`token id ${t} is outside the vocabulary (0..${c.vocabSize - 1})`, { code: 'E_TOKEN_ID' });
    const end = length(req.seqId) + req.tokens.length;
    if (end > c.maxPositions)
      throw new UserError(`sequence ${req.seqId} would reach ${end} tokens; the model's max_position_embeddings is ${c.maxPositions}`, {
        code: 'E_CONTEXT_LENGTH',
        hint: 'use a shorter prompt or fewer --max-tokens',
      });
  }
}
