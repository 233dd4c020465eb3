/**
 * Verification of one request's drafts (research attention-numerics.md §3.1–3.2).
 *
 * The target runs once on k'+1 query rows — [last emitted token, d1 … dk'] — through the engine's
 * DECODE path (the engine treats requests of ≤ 1 + k rows as decodes, so q_len_per_req = k'+1 and
 * the attention backend's spec-as-decode routing, bookkeeping and fault model apply exactly as in
 * serving). Row t's logits score the token after row t's input, so:
 *
 *   for t in 0 … k'−1:  out[t] = target(row t); stop at the first draft that is not accepted
 *   all accepted:       out[k'] = target(row k')   (the bonus token)
 *
 * Greedy: target = argmax and a draft is accepted iff it equals it (vLLM's rejection sampler, greedy
 * mode). Sampled: a draft d with no draft probabilities (ngram, suffix, greedy MTP: one-hot drafts) is
 * accepted with probability p_target(d); a rejection emits a token drawn from p_target with d removed.
 * Emitted tokens: the accepted drafts plus one correction or bonus token (1 … k'+1 per step).
 * The caller then keeps the KV of [last, accepted drafts] and rolls the rest back.
 */

/** How a request turns one row of logits into tokens (the row index is the output position). */
export interface RowSampler {
  /** The token the target itself emits at this output position (greedy: argmax; sampled: a draw). */
  pick(logits: Float32Array, outIndex: number): number;
  /** Whether the draft is accepted at this output position. */
  accept(logits: Float32Array, outIndex: number, draft: number): boolean;
  /** The token emitted where `draft` was rejected. */
  recover(logits: Float32Array, outIndex: number, draft: number): number;
}

export interface VerifyResult {
  /** Drafts accepted (0 … k'). */
  accepted: number;
  /** Accepted drafts plus the correction or bonus token. */
  tokens: number[];
}

/**
 * `row(t)` gives the logits of query row t (t = 0 … drafts.length); `outIndex` is the output position
 * the first emitted token will take (for min_tokens masking and per-position randomness).
 */
export function verifyDrafts(row: (t: number) => Float32Array, drafts: readonly number[], sampler: RowSampler, outIndex: number): VerifyResult {
  const tokens: number[] = [];
  for (let t = 0; t < drafts.length; t++) {
    const logits = row(t);
    if (sampler.accept(logits, outIndex + t, drafts[t])) {
      tokens.push(drafts[t]);
      continue;
    }
    tokens.push(sampler.recover(logits, outIndex + t, drafts[t]));
    return { accepted: t, tokens };
  }
  tokens.push(sampler.pick(row(drafts.length), outIndex + drafts.length));
  return { accepted: drafts.length, tokens };
}
