/**
 * Length plans → token-id prompts: cut held-out prose at a seeded word boundary, tokenize it on
 * the server (so the ids are the server's own), keep exactly `length` tokens. Token-id prompts
 * make both servers see the same input, with no tokenizer or chat-template differences.
 */
import type { Rng } from '../core/rng.js';
import type { CallResult } from './client.js';

export type Tokenize = (text: string) => Promise<CallResult<number[]>>;

/** Start of a word at or after a seeded offset. */
function wordStart(corpus: string, rng: Rng): number {
  const at = rng.int(corpus.length);
  const next = corpus.slice(at).search(/\s\S/);
  return next < 0 ? 0 : at + next + 1;
}

export async function promptOfLength(
  corpus: string,
  length: number,
  rng: Rng,
  tokenize: Tokenize,
): Promise<CallResult<number[]>> {
  if (corpus.length === 0) return { ok: false, error: 'the prompt text is empty', attempts: [] };
  const start = wordStart(corpus, rng);
  // 4 characters per token covers BPE vocabularies; byte-level ones need 1. Doubled on a shortfall.
  let chars = length * 4 + 64;
  for (let tries = 0; tries < 5; tries++) {
    let text = corpus.slice(start, start + chars);
    while (text.length < chars && corpus.length > 0) text += '\n\n' + corpus.slice(0, chars - text.length);
    const r = await tokenize(text);
    if (!r.ok) return r;
    if (r.value.length >= length) return { ok: true, value: r.value.slice(0, length), attempts: r.attempts };
    chars *= 2;
  }
  return { ok: false, error: `could not cut a ${length}-token prompt from the prompt text`, attempts: [] };
}
