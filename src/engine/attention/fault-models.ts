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
 * window). The wrong page pointer belongs to one KV head, kv = (lo / P) mod Hkv, so every query
 * head that reads that KV head (its GQA group, Hq / Hkv heads) is affected and successive failing
 * calls hit different groups. With q_len_per_req ≤ P at most one row per request qualifies, and
 * only for q_len_per_req of the P possible seq_len alignments; deeper speculation (more rows)
 * qualifies more rows per call. Per generated token it does not: whether the row at position p is
 * faulty depends on p alone once its call has more than 4 rows, and with k = 7 every call has 8, so
 * drafting deeper exposes no position that k = 7 leaves clean (bench:spec part B measures it). The
 * report's runaway repetition with k = 64 suffix decoding is therefore NOT reproduced: it implies a
 * depth-dependent mechanism the public reports do not describe, and this model does not invent one.
 *
 * Where the model departs from the report, on purpose: the report saw "usually one (row, head)
 * pair"; this model corrupts the row's whole GQA group (2 query heads at both gemma-4-31B's 32/16
 * and tiny-swa's 4/2 heads). With a single query head the fault was too faint to reproduce the
 * report's end-to-end symptom on the 6-layer test model (5 sliding-window layers against
 * gemma-4-31B's 50). Measured with `faultline probe --window 128 --requests 8 --max-tokens 64
 * --no-early-stop --seed S` (S = 0…3) of an `engine serve --emulate sm100-affected --max-model-len 512`
 * target (FP8 KV, MTP k = 7, Q quantization disabled) against a BF16-KV reference: one head made
 * 2, 5, 0 and 1 of 8 requests corrupt (lost in FP8 KV rounding noise); the group makes 6, 6, 6, 5.
 * A KV tile is shared by its group in a GQA decode kernel, so one
 * wrong page pointer reaching the whole group is the more natural failure anyway.
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
  numKvHeads: number;
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
    'window start falls on a page boundary reads the previous page instead of its newest one, in one KV head (its query-head group)',
  faultyPairs(c) {
    if (c.kernel !== 'trtllm-gen-decode' || c.qDtype !== 'bf16' || !c.kvQuantized) return [];
    if (c.windowLeft < 0 || c.qLenPerReq <= 4 || c.seqLen <= c.windowLeft + 1) return [];
    const P = c.pageSize;
    const pairs: FaultyPair[] = [];
    for (let row = 0; row < c.qLenPerReq; row++) {
      const p = c.seqLen - c.qLenPerReq + row;
      const lo = p - c.windowLeft;
      if (lo <= 0 || lo % P !== 0) continue;
      const group = c.numHeads / c.numKvHeads;
      const kvHead = (lo / P) % c.numKvHeads;
      for (let head = kvHead * group; head < (kvHead + 1) * group; head++) pairs.push({ row, head, lo: lo - P, hi: p - P });
    }
    return pairs;
  },
};

export const FAULT_MODELS: Record<string, FaultModel> = { [trtllmGenSwaSpecdec.name]: trtllmGenSwaSpecdec };
