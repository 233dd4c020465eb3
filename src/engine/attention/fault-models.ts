/**
 * Fault models: deterministic stand-ins for kernel defects whose root cause is not public.
 * A fault model never claims to be the defect; it reproduces the defect's reported observables
 * so that everything downstream (probe, matrix, kernel localisation) can be exercised on a CPU.
 *
 * `trtllm-gen-swa-specdec` models flashinfer-ai/flashinfer#3864 / vllm-project/vllm#47847:
 * trtllm-gen spec-as-decode with a BF16 query and an FP8 KV cache mis-computes sliding-window
 * attention on SM100. Reported observables (research attention-numerics.md §0, §6; vllm-flashinfer.md §7):
 *   - clean with an FP8 query, with no window (window_left = −1), with q_len_per_req 1, 2 or 4,
 *     and while seq_len ≤ window;
 *   - otherwise wrong only at some seq_len values, typically in a single (query row, head) pair
 *     per failing call, max abs error ~0.8–1.8 on outputs of magnitude ~1–3, cosine down to 0.93.
 *
 * ASSUMED MECHANISM (a model, not the root cause): in the BF16-Q × FP8-KV generation kernel with
 * more than 4 query rows per request, a row whose window start lo = p − window_left falls exactly
 * on a page boundary takes its key range from the previous page: it attends [lo − P, p − P]
 * instead of [lo, p] (its own newest page_size keys replaced by the page_size keys just before its
 * window). Only one query head per such row is affected: head (lo / P) mod Hq, so successive
 * failing calls hit different heads. With q_len_per_req ≤ P at most one row per request
 * qualifies, and only for q_len_per_req of the P possible seq_len alignments; deeper speculation
 * (more rows) qualifies more rows, so it corrupts more.
 */
import type { FlashinferKernel } from './bookkeeping.js';

export interface FaultContext {
  kernel: FlashinferKernel;
  qDtype: 'bf16' | 'fp8';
  kvQuantized: boolean;
  windowLeft: number;
  /** q_len_per_req of the decode call (rows per request). */
  qLenPerReq: number;
  seqLen: number;
  pageSize: number;
  numHeads: number;
}

/** A (row, head) pair whose key range the fault changes, and the range it attends instead. */
export interface FaultyPair {
  row: number;
  head: number;
  lo: number;
  hi: number;
}

export interface FaultModel {
  readonly name: string;
  /** One paragraph for CLI help and output; says that this is a model. */
  readonly summary: string;
  /** Pairs of one request in one call; [] when the call is clean. */
  faultyPairs(c: FaultContext): FaultyPair[];
}

export const trtllmGenSwaSpecdec: FaultModel = {
  name: 'trtllm-gen-swa-specdec',
  summary:
    'fault model trtllm-gen-swa-specdec: a MODEL of the unpublished trtllm-gen defect of flashinfer#3864 ' +
    '(BF16 query + FP8 KV + sliding window + q_len_per_req > 4 on SM100); assumed mechanism: a decode row whose ' +
    'window start falls on a page boundary reads the previous page instead of its newest one, in one head',
  faultyPairs(c) {
    if (c.kernel !== 'trtllm-gen-decode' || c.qDtype !== 'bf16' || !c.kvQuantized) return [];
    if (c.windowLeft < 0 || c.qLenPerReq <= 4 || c.seqLen <= c.windowLeft + 1) return [];
    const P = c.pageSize;
    const pairs: FaultyPair[] = [];
    for (let row = 0; row < c.qLenPerReq; row++) {
      const p = c.seqLen - c.qLenPerReq + row;
      const lo = p - c.windowLeft;
      if (lo <= 0 || lo % P !== 0) continue;
      pairs.push({ row, head: (lo / P) % c.numHeads, lo: lo - P, hi: p - P });
    }
    return pairs;
  },
};

export const FAULT_MODELS: Record<string, FaultModel> = { [trtllmGenSwaSpecdec.name]: trtllmGenSwaSpecdec };
