/**
 * prompt_logprobs of one request, chunk by chunk: prompt position p is scored by the logits of
 * position p − 1, so a chunk's first token is scored by the previous chunk's last row (kept here
 * between steps). Position 0 has no entry (null), as in vLLM.
 */
import { logSoftmax, topLogprobs } from './sampling.js';
import type { PromptLogprob } from './sequence.js';
import type { StateFaults } from './state-faults.js';

/** Rank of `id` (1 = most likely) among logprobs, as vLLM counts it: 1 + how many are strictly more likely. */
function rankOf(lp: Float64Array, id: number): number {
  let r = 1;
  for (let i = 0; i < lp.length; i++) if (lp[i] > lp[id]) r++;
  return r;
}

export class PromptLogprobsScorer {
  readonly entries: PromptLogprob[] = [null];
  private lastRow: Float32Array | null = null;

  /** `k` alternatives per entry (−1: the whole vocabulary). */
  constructor(
    private readonly prompt: readonly number[],
    private readonly k: number,
    private readonly vocabSize: number,
    private readonly faults: StateFaults,
  ) {}

  /** Entries of the chunk at prompt positions start … start + rows − 1, from its logits [rows, V]. */
  scoreChunk(logits: Float32Array, rows: number, start: number): void {
    const V = this.vocabSize;
    const k = this.k === -1 ? V : this.k;
    // FAULT MODEL prompt-logprobs-chunk-offset: a chunk after the first reads each token's own row
    // (which predicts the NEXT position) instead of the row before it
    const shifted = start > 0 && this.faults.has('prompt-logprobs-chunk-offset');
    const rowBefore = (p: number) => (p === start ? this.lastRow! : logits.subarray((p - 1 - start) * V, (p - start) * V));
    const row = (p: number) => (shifted ? logits.subarray((p - start) * V, (p - start + 1) * V) : rowBefore(p));
    for (let p = Math.max(1, start); p < start + rows; p++) {
      const raw = row(p);
      const lp = logSoftmax(raw);
      const id = this.prompt[p];
      this.entries.push({ id, logprob: lp[id], rank: rankOf(lp, id), top: k > 0 ? topLogprobs(raw, k) : [] });
    }
    this.lastRow = logits.slice((rows - 1) * V, rows * V);
  }

  /** The prompt is done: the last row is no longer needed. */
  finish(): PromptLogprob[] {
    this.lastRow = null;
    return this.entries;
  }
}
