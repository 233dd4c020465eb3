/**
 * How node-llama-cpp fills one llama_decode batch from the sequences that have tokens queued: an
 * equal share of the batch's `size` tokens for each, in turns (every sequence with work is in
 * every batch while they fit — continuous batching), and a count of the sequences each batch
 * carried, which /metrics reports (faultline:llama_cpp_batch_sequences_total / batches_total).
 */
import type { BatchItem, PrioritizedBatchItem } from 'node-llama-cpp';

export interface BatchCounters {
  batches: number;
  /** Sum over batches of the sequences each one carried. */
  sequences: number;
  /** The most sequences one batch carried. */
  maxSequences: number;
}

export function equalShareStrategy(counters: BatchCounters) {
  return ({ items, size }: { items: readonly BatchItem[]; size: number }): PrioritizedBatchItem[] => {
    const amounts = items.map(() => 0);
    let left = size;
    for (let open = items.length; left > 0 && open > 0;) {
      open = 0;
      const share = Math.max(1, Math.floor(left / items.length));
      items.forEach((item, i) => {
        const take = Math.min(share, item.tokens.length - amounts[i], left);
        amounts[i] += take;
        left -= take;
        if (amounts[i] < item.tokens.length) open++;
      });
    }
    const chosen = items
      .map((item, i) => ({ item, processAmount: amounts[i] }))
      .filter((p) => p.processAmount > 0);
    counters.batches++;
    counters.sequences += chosen.length;
    counters.maxSequences = Math.max(counters.maxSequences, chosen.length);
    return chosen;
  };
}
