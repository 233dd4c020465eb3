/**
 * Contiguous repeated spans ("a sequence of a sequence of a sequence of"): a pattern of
 * `size` tokens occurring `count` ≥ minCount times back to back, anywhere in the sequence
 * (vLLM's repetition_detection looks only at the tail while generating; an after-the-fact
 * oracle can look everywhere).
 *
 * Greedy text is repetitive on its own (seq-rep-4 0.44 for a greedy MLE baseline, research notes
 * §3.1), so a span is evidence only relative to the reference: `excessRepetition` keeps the
 * candidate's spans whose pattern the reference's own output for the same prompt never repeats.
 */

export interface RepetitionOptions {
  minPatternSize: number;
  maxPatternSize: number;
  minCount: number;
}

/** Defaults after vLLM PR #52677's advice (patterns of several tokens, ≥ 3 repeats) — configurable. */
export const DEFAULT_REPETITION: Readonly<RepetitionOptions> = {
  minPatternSize: 2,
  maxPatternSize: 64,
  minCount: 3,
};

export interface RepeatedSpan {
  /** Index of the first token of the span. */
  start: number;
  /** Tokens covered by the span (a trailing partial repeat included). */
  length: number;
  patternSize: number;
  /** Whole repeats of the pattern. */
  count: number;
  /** The pattern rotated to its smallest rotation, so the same loop entered at another phase compares equal. */
  canonical: number[];
}

function lessThan(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i];
  return false;
}

export function canonicalRotation(pattern: readonly number[]): number[] {
  let best = [...pattern];
  for (let r = 1; r < pattern.length; r++) {
    const rot = [...pattern.slice(r), ...pattern.slice(0, r)];
    if (lessThan(rot, best)) best = rot;
  }
  return best;
}

/** Every maximal periodic run with a period in [min, max] and ≥ minCount whole repeats; smallest period wins. */
export function findRepeatedSpans(
  tokens: readonly number[],
  options: RepetitionOptions = DEFAULT_REPETITION,
): RepeatedSpan[] {
  const minSize = Math.max(1, options.minPatternSize);
  const spans: RepeatedSpan[] = [];
  for (
    let size = minSize;
    size <= options.maxPatternSize && size * options.minCount <= tokens.length;
    size++
  ) {
    let i = size;
    while (i < tokens.length) {
      if (tokens[i] !== tokens[i - size]) {
        i++;
        continue;
      }
      const runStart = i;
      while (i < tokens.length && tokens[i] === tokens[i - size]) i++;
      const start = runStart - size;
      const length = i - start;
      const count = Math.floor(length / size);
      if (count >= options.minCount)
        spans.push({
          start,
          length,
          patternSize: size,
          count,
          canonical: canonicalRotation(tokens.slice(start, start + size)),
        });
    }
  }
  // "abab" is also periodic with period 4, "aaaa" with every period: keep the smallest period.
  return spans
    .filter(
      (s) =>
        !spans.some(
          (o) =>
            o !== s &&
            o.patternSize < s.patternSize &&
            s.patternSize % o.patternSize === 0 &&
            o.start <= s.start &&
            o.start + o.length >= s.start + s.length,
        ),
    )
    .sort((a, b) => a.start - b.start || a.patternSize - b.patternSize);
}

const key = (p: readonly number[]) => p.join(',');

/**
 * The candidate's repeated spans that end after `from` (the first divergence: spans inside the
 * shared prefix are the reference's too) and whose pattern the reference never repeats.
 */
export function excessRepetition(
  reference: readonly number[],
  candidate: readonly number[],
  options: RepetitionOptions = DEFAULT_REPETITION,
  from = 0,
): RepeatedSpan[] {
  const seen = new Set(findRepeatedSpans(reference, options).map((s) => key(s.canonical)));
  return findRepeatedSpans(candidate, options).filter(
    (s) => s.start + s.length > from && !seen.has(key(s.canonical)),
  );
}
