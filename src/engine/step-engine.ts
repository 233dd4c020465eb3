/**
 * The step API every engine offers — what the scheduler, generate and speculative decoding build on:
 *
 *   const [a, b] = engine.forward([{ seqId: 1, tokens: prompt }, { seqId: 2, tokens: [t0, d1, d2] }]);
 *   // a.logits: [prompt.length, V], b.logits: [3, V] — one row per new token
 *   engine.rollback(2, len);   // drop rejected drafts
 *   engine.release(1);         // free the sequence's cache
 *
 * Each call appends the new tokens to their sequences' KV cache and returns logits (and the
 * pre-norm hidden state, for MTP) for every new row. As in vLLM's FlashInfer backend, a step is split
 * into a decode slice (requests with the same, small query length — spec-as-decode when that length
 * is > 1) and a prefill slice; the attention backend sees which slice it runs. Implementations: the
 * single-threaded `Engine` (engine.ts, which also holds the phase split and the step validation both
 * use) and `ShardedEngine` (sharded-engine.ts), which spreads the sequences of every step over an
 * Engine here and one in a worker thread.
 */
import type { AttentionPhase } from './attention/backend.js';
import type { PrefixCacheStats } from './kv-cache/block-manager.js';
import type { Model } from './model.js';

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

/** Which requests of a step run in the decode slice (with qLenPerReq rows each); the rest prefill. */
export interface StepPhases {
  decode: readonly boolean[];
  qLenPerReq: number;
}

/**
 * What the scheduler manages of an engine's KV cache, as vLLM's scheduler drives its KVCacheManager:
 * a block budget that can run out (so the scheduler allocates each step's slots before the step and
 * preempts when they do not fit) and prefix caching (kv-cache/block-manager.ts).
 */
export interface KvBlockSpace {
  readonly numBlocks: number;
  readonly pageSize: number;
  readonly prefixCaching: boolean;
  readonly numFree: number;
  /** Share of the blocks in use, 0…1. */
  readonly usage: number;
  readonly stats: PrefixCacheStats;
  /** A new sequence reuses the cached blocks of its prefix; returns the tokens it starts with (0 without prefix caching). */
  attachPrefix(seqId: number, tokens: readonly number[]): number;
  /** Slots for the next step's `tokens` (the first `committed` final, the rest drafts); false, changing nothing, when out of blocks. */
  allocateSlots(seqId: number, tokens: readonly number[], committed: number): boolean;
  /** Forgets every cached prefix (after a failed step, whose blocks were registered but never written). */
  resetPrefixCache(): void;
}

export interface StepEngine {
  readonly model: Model;
  /** k: requests with up to 1 + k new tokens (and the same count) run as decode. */
  readonly numSpeculativeTokens: number;
  /** One step; `phases` as decided over a larger step this one is a part of (default: decided here). */
  forward(batch: readonly StepRequest[], phases?: StepPhases): StepResult[];
  /** Keep the first `len` tokens of a sequence (e.g. drop rejected drafts). */
  rollback(seqId: number, len: number): void;
  /** Frees the sequence's cache (`aborted`: its request was cancelled). */
  release(seqId: number, aborted?: boolean): void;
  /** The KV block budget the scheduler manages; null when the cache cannot run out and caches no prefixes. */
  readonly kvBlocks: KvBlockSpace | null;
  /** Tokens in the sequence's cache (0 for an unknown sequence). */
  length(seqId: number): number;
  /** One MTP draft step (model.ts mtpStep) with this engine's kernels and precision; null without an MTP head. */
  mtpStep(hidden: Float32Array, nextToken: number): { logits: Float32Array; g: Float32Array } | null;
  /** Ends whatever the engine started (a worker thread); it never keeps the process alive. */
  close(): Promise<void>;
}
