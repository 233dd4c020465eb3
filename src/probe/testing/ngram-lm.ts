/**
 * A small byte-level language model for tests: Witten–Bell interpolated n-grams over the
 * project's byte vocabulary (ids 0–255 bytes, 256 BOS, 257 EOS). It is not the engine; it exists
 * so the probe can be tested end to end against a server whose distributions look like a
 * language model's (confident inside words, spread out at word starts) without any weights.
 */

export interface LanguageModel {
  readonly vocabSize: number;
  /** Natural-log probabilities of the next token after `context` (length vocabSize, sums to 1). */
  logprobs(context: readonly number[]): Float64Array;
}

export const BYTE_VOCAB = 258;
export const BOS = 256;
export const EOS = 257;

export function encodeBytes(text: string, addBos = true): number[] {
  const ids = Array.from(new TextEncoder().encode(text));
  return addBos ? [BOS, ...ids] : ids;
}

export function decodeBytes(ids: readonly number[]): string {
  return new TextDecoder().decode(Uint8Array.from(ids.filter((t) => t < 256)));
}

export function trainByteNgram(text: string, order = 5): LanguageModel {
  const ids = encodeBytes(text);
  // counts[n]: context of the last n tokens (joined) → next-token counts
  const counts: Map<string, Map<number, number>>[] = Array.from({ length: order }, () => new Map());
  for (let i = 1; i < ids.length; i++) {
    for (let n = 0; n < order && n <= i; n++) {
      const key = ids.slice(i - n, i).join(',');
      let m = counts[n].get(key);
      if (!m) counts[n].set(key, (m = new Map()));
      m.set(ids[i], (m.get(ids[i]) ?? 0) + 1);
    }
  }
  const totals = counts.map(
    (level) => new Map([...level].map(([k, m]) => [k, [...m.values()].reduce((a, b) => a + b, 0)])),
  );
  // only the last order−1 tokens matter: memoize on them (greedy text revisits the same contexts)
  const memo = new Map<string, Float64Array>();
  return {
    vocabSize: BYTE_VOCAB,
    logprobs(context) {
      const memoKey =
        context.slice(Math.max(0, context.length - (order - 1))).join(',') +
        (context.length < order - 1 ? '|' : '');
      const hit = memo.get(memoKey);
      if (hit) return hit.slice();
      const p = new Float64Array(BYTE_VOCAB).fill(1 / BYTE_VOCAB);
      for (let n = 0; n < order && n <= context.length; n++) {
        const key = context.slice(context.length - n).join(',');
        const m = counts[n].get(key);
        if (!m) break;
        const c = totals[n].get(key)!;
        const types = m.size;
        for (let x = 0; x < BYTE_VOCAB; x++) p[x] = (types * p[x]) / (c + types);
        for (const [x, k] of m) p[x] += k / (c + types);
      }
      for (let x = 0; x < BYTE_VOCAB; x++) p[x] = Math.log(p[x]);
      memo.set(memoKey, p);
      return p.slice();
    },
  };
}
