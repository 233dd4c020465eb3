/**
 * Prompt lookup (vLLM's `ngram` proposer, research attention-numerics.md §3.3): find the longest
 * suffix n-gram of the sequence (prompt + output), min_n ≤ n ≤ max_n, that also occurs earlier;
 * among equally long matches take the earliest occurrence; propose the ≤ k tokens that followed it
 * (fewer when the sequence ends first). Nothing when no suffix of at least min_n tokens recurs.
 *
 * vLLM finds the match with a KMP failure function over the reversed sequence; this walks every
 * earlier end position directly (O(N · max_n), cheap at this engine's context lengths) and picks
 * the same match: longest (capped at max_n), then earliest.
 */
export function proposeNgram(tokens: readonly number[], minN: number, maxN: number, k: number): number[] {
  const n = tokens.length;
  if (k <= 0 || n < 2) return [];
  let bestLen = 0;
  let bestEnd = -1;
  // e: end index of an earlier occurrence (the suffix itself ends at n − 1)
  for (let e = 0; e < n - 1; e++) {
    let len = 0;
    while (len < maxN && len <= e && tokens[e - len] === tokens[n - 1 - len]) len++;
    if (len > bestLen) {
      bestLen = len;
      bestEnd = e;
    }
  }
  if (bestLen < minN) return [];
  return tokens.slice(bestEnd + 1, Math.min(n, bestEnd + 1 + k));
}
