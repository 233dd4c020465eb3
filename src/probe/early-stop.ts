/**
 * Generations that end before max_tokens. The probe asks for a fixed length with `ignore_eos`, but
 * not every server honours it (Ollama's and TGI's OpenAI routes have no such field; a server may
 * drop `min_tokens` too), so a generation can stop at the end-of-sequence token. That is benign: the
 * tokens it did return are judged against the same number of the other side's, and the record says
 * how many were left unjudged. A short generation that does not say it stopped (no finish reason,
 * or "length" with fewer tokens than asked) is a broken answer, never judged.
 *
 * A corrupt server that ends early where the reference does not still shows: the end-of-sequence
 * token it returned is compared with the reference's token at that position.
 */
import type { Generation } from '../oracle/types.js';

/** The finish reasons engines give for stopping at the end-of-sequence token. */
const EOS_REASONS = new Set(['stop', 'eos_token', 'eos']);

/** Undefined when `g` is acceptable for a request of `maxTokens`; else what is wrong with it. */
export function lengthProblem(g: Generation, maxTokens: number): string | undefined {
  if (g.tokens.length === maxTokens) return undefined;
  if (g.tokens.length < maxTokens && g.tokens.length > 0 && EOS_REASONS.has(g.finishReason ?? ''))
    return undefined;
  return `asked for ${maxTokens} tokens with ignore_eos, got ${g.tokens.length} (finish_reason ${g.finishReason ?? 'none'})`;
}

function truncated(g: Generation, n: number): Generation {
  return g.tokens.length <= n ? g : { ...g, tokens: g.tokens.slice(0, n), steps: g.steps.slice(0, n) };
}

/** Both generations cut to the tokens both have, and a note when either stopped early. */
export function commonLength(
  reference: Generation,
  candidate: Generation,
  maxTokens: number,
): { reference: Generation; candidate: Generation; note?: string } {
  const n = Math.min(reference.tokens.length, candidate.tokens.length);
  if (n === reference.tokens.length && n === candidate.tokens.length) return { reference, candidate };
  const who = candidate.tokens.length < reference.tokens.length ? 'the target' : 'the reference';
  return {
    reference: truncated(reference, n),
    candidate: truncated(candidate, n),
    note: `${who} stopped at the end-of-sequence token after ${n} of ${maxTokens} tokens (ignore_eos not honoured): judged on those ${n}`,
  };
}
