/**
 * Stateful fault models: deliberate, switchable departures from correct KV-cache state handling,
 * each standing for a class of public bugs that only show under real traffic (prefix-cache hits
 * and evictions, cancelled neighbours, chunked prefill). Off unless named with
 * `--stateful-fault-model NAME` (`engine serve`); each says what it corrupts, which bug it stands
 * for, and what workload it needs — a single request alone never triggers one. Like the kernel
 * fault model (attention/fault-models.ts) these are MODELS: the public threads give the symptom
 * and the state involved, not always the code path, and the model picks the simplest mechanism
 * that produces that symptom from that state.
 *
 * The mechanisms sit where the correct code is (one guarded branch each): kv-cache/block-manager.ts
 * (eviction, release) and sequence-prompt-logprobs.ts (prompt logprobs of a chunk).
 */
export const STATE_FAULT_NAMES = ['stale-prefix-hash', 'abort-frees-shared-blocks', 'prompt-logprobs-chunk-offset'] as const;
export type StateFaultName = (typeof STATE_FAULT_NAMES)[number];
export type StateFaults = ReadonlySet<StateFaultName>;
export const NO_STATE_FAULTS: StateFaults = new Set();

export interface StateFaultModel {
  name: StateFaultName;
  /** What goes wrong, in one sentence (CLI help, `engine serve` start-up note). */
  summary: string;
  /** The public bug class it stands for. */
  references: string[];
  /** The workload that triggers it (the probe's workload suite builds it). */
  needs: string;
}

export const STATE_FAULT_MODELS: readonly StateFaultModel[] = [
  {
    name: 'stale-prefix-hash',
    summary:
      'a cached block evicted to make room keeps its prefix-cache key: a later request with the evicted prefix "hits" the block, which now holds another sequence\'s K/V',
    references: [
      'vllm-project/vllm#37076 (use-after-free in the KV block allocator under eviction pressure: one-token-shifted or zeroed blocks)',
      "the correct shape: vLLM's BlockPool._maybe_evict_cached_block drops the hash when a cached block is reallocated (vllm/v1/core/block_pool.py)",
    ],
    needs: '--enable-prefix-caching, a shared prefix, then enough other traffic to evict it, then the prefix again',
  },
  {
    name: 'abort-frees-shared-blocks',
    summary:
      'an aborted request (client disconnect) frees all its blocks, ignoring their reference counts: a block a neighbour still reads through a prefix-cache hit goes back to the free list and is overwritten',
    references: [
      'vllm-project/vllm#39146 (KV block corruption with a cancel/retry pattern under concurrency: 11 of 21 requests diverge at temperature 0; reported without prefix caching, where the sharing path is not public)',
      'vllm-project/vllm#37076 (eviction-pressure use-after-free in the same allocator)',
    ],
    needs: '--enable-prefix-caching (or n > 1), a request that shares a prefix with a neighbour that is cancelled while it runs, then new requests that take the freed blocks',
  },
  {
    name: 'prompt-logprobs-chunk-offset',
    summary:
      'prompt_logprobs of every chunk after the first (chunked prefill) are read one row off: each prompt token is scored by the logits of its own position instead of the position before it',
    references: [
      'vllm-project/vllm#53488 (prompt_logprobs silently corrupted with MTP + chunked prefill: corpus perplexity 29.07 vs 3.22)',
      'vllm-project/vllm PR#29216 (wrong offsets into the logprobs tensors with spec decoding + chunked prefill)',
    ],
    needs: 'prompt_logprobs on a prompt longer than the step token budget (--max-num-batched-tokens)',
  },
];

export function stateFaultModel(name: StateFaultName): StateFaultModel {
  return STATE_FAULT_MODELS.find((m) => m.name === name)!;
}
