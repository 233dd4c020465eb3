/**
 * One interface for every attention implementation. The engine hands a backend one layer's
 * queries for a group of requests that run the same path (all decode rows with the same
 * q_len_per_req, or prefill rows); the backend reads K/V through each request's cache view.
 * Everything that varies between "as fixed" and "as shipped" (scale bookkeeping, query dtype,
 * the fault model) is data chosen when the backend is built, not a branch in a kernel.
 */
import type { KvDtype, KvView } from '../kv-cache/cache.js';
import type { AttentionScales } from '../weights.js';

export interface AttentionRequest {
  view: KvView;
  /** KV length including this step's rows (FlashInfer's seq_lens). */
  seqLen: number;
  /** New query rows of this request; row t sits at absolute position seqLen − qLen + t. */
  qLen: number;
  /** Index of this request's first row in q / out. */
  rowStart: number;
}

export interface AttentionLayer {
  index: number;
  numHeads: number; // Hq
  numKvHeads: number; // Hkv
  headDim: number; // hd
  /** sliding_window − 1, or −1 for no window. */
  windowLeft: number;
  /** The model's softmax scale (query_pre_attn_scalar^-0.5). */
  smScale: number;
  /** Checkpoint scales of this layer (1.0 when absent). */
  scales: AttentionScales;
  kvDtype: KvDtype;
  pageSize: number;
}

/** Which slice of a step this is: prefill, or decode with a uniform q_len_per_req (spec-as-decode when > 1). */
export type AttentionPhase = { kind: 'prefill' } | { kind: 'decode'; qLenPerReq: number };

/** What one backend call did; collected for tests, the CLI summary and kernel dumps. */
export interface AttentionCallRecord {
  layer: number;
  phase: AttentionPhase;
  kernel: string;
  qDtype: 'fp32' | 'bf16' | 'fp8';
  bmm1: number;
  bmm2: number;
  dequantizeKvFirst: boolean;
  /** (request index in the call, row, head) pairs whose key range a fault model changed. */
  faultyPairs: { request: number; row: number; head: number; lo: number; hi: number }[];
}

export interface AttentionBackend {
  readonly name: string;
  /** Whether multi-row decode slices (spec verification) may run on the decode path. */
  readonly supportsSpecAsDecode: boolean;
  /**
   * q: [rows, Hq, hd] after QK-norm and RoPE, in the model's precision; out: [rows, Hq, hd].
   * Only the rows of `requests` are read and written.
   */
  run(q: Float32Array, out: Float32Array, requests: AttentionRequest[], layer: AttentionLayer, phase: AttentionPhase): void;
  /** Called after every run with what it did (optional observer). */
  onCall?: (record: AttentionCallRecord) => void;
}

/** Absolute position of row t of a request. */
export function rowPosition(req: AttentionRequest, t: number): number {
  return req.seqLen - req.qLen + t;
}

/** The exact per-row key range [lo, hi]: max(0, p − window_left) ≤ j ≤ p (research attention-numerics §2.3). */
export function keyRange(p: number, windowLeft: number): { lo: number; hi: number } {
  return { lo: windowLeft < 0 ? 0 : Math.max(0, p - windowLeft), hi: p };
}

/** What a kernel multiplies a stored K / V value by: the per-tensor scale for an FP8 cache (as float32), else 1. */
export function kvScales(layer: AttentionLayer): { ks: number; vs: number } {
  const fp8 = layer.kvDtype === 'fp8_e4m3';
  return { ks: fp8 ? Math.fround(layer.scales.k) : 1, vs: fp8 ? Math.fround(layer.scales.v) : 1 };
}
