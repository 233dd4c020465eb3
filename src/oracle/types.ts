/**
 * The data the oracles judge: what a server said about one prompt, reduced to token ids and
 * log-probabilities. Everything here is plain JSON so exchanges can be recorded and replayed.
 *
 * Positions: a prompt of P tokens (BOS included) occupies sequence positions 0..P-1; generated
 * token i sits at position P + i. That number is also the seq_len the server attended over when
 * it produced the token, which is what the sliding-window defect keys on (positions.ts).
 */

/** One alternative from a server's top-k list. */
export interface TopLogprob {
  token: number;
  logprob: number;
}

/** One generated token with the server's own top-k alternatives at that step (sorted, best first). */
export interface GeneratedStep {
  token: number;
  logprob: number;
  top: TopLogprob[];
}

/** A greedy generation for one prompt. */
export interface Generation {
  tokens: number[];
  steps: GeneratedStep[];
  finishReason?: string;
  text?: string;
}

/**
 * How the reference scores one token of someone else's continuation (prompt_logprobs or echo):
 * its log-probability, its rank (1 = the reference's own greedy choice; `rankIsLowerBound` when the
 * token fell outside the returned top-k and only "rank > k" is known) and the best token's logprob.
 */
export interface ScoredToken {
  token: number;
  logprob: number;
  rank: number;
  rankIsLowerBound?: boolean;
  topLogprob: number;
  topToken: number;
}
