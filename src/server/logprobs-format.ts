/**
 * vLLM's log-probability shapes (research correctness-oracles.md §4.1–4.2):
 *   completions  logprobs = {text_offset[], token_logprobs[], tokens[], top_logprobs[]}; each
 *                top_logprobs entry is a dict token-string → logprob holding the top k AND the chosen
 *                token (vLLM always adds the sampled token); echoed prompt tokens come first, the
 *                first of them with null logprob and null top_logprobs.
 *   chat         logprobs = {content: [{token, logprob, bytes, top_logprobs: [{token, logprob, bytes}]}]}
 *   prompt_logprobs  [null, {"<id>": {logprob, rank, decoded_token}, …}, …] (the prompt token + top k).
 * Token strings are the token's decoded text, or "token_id:N" with return_tokens_as_token_ids.
 */
import type { TokenLogprob } from '../engine/sampling.js';
import type { EmittedToken, PromptLogprob } from '../engine/sequence.js';
import type { Tokenizer } from '../engine/tokenizer.js';

export interface CompletionLogprobs {
  text_offset: number[];
  token_logprobs: (number | null)[];
  tokens: string[];
  top_logprobs: (Record<string, number> | null)[];
}

export class TokenNames {
  constructor(
    private readonly tokenizer: Tokenizer,
    readonly asIds: boolean,
  ) {}

  name(id: number): string {
    return this.asIds ? `token_id:${id}` : this.tokenizer.decode([id]);
  }

  bytes(id: number): number[] {
    return id >= 0 && id < 256 ? [id] : Array.from(new TextEncoder().encode(this.tokenizer.tokenText(id)));
  }
}

/** Builds completion logprobs incrementally (text_offset continues across stream chunks). */
export class CompletionLogprobsBuilder {
  private offset: number;

  constructor(
    private readonly names: TokenNames,
    startOffset = 0,
  ) {
    this.offset = startOffset;
  }

  private entry(into: CompletionLogprobs, id: number, logprob: number | null, top: TokenLogprob[] | null): void {
    const name = this.names.name(id);
    into.text_offset.push(this.offset);
    this.offset += name.length;
    into.tokens.push(name);
    into.token_logprobs.push(logprob);
    if (top === null || logprob === null) {
      into.top_logprobs.push(null);
      return;
    }
    const dict: Record<string, number> = {};
    for (const t of top) dict[this.names.name(t.id)] ??= t.logprob;
    dict[name] ??= logprob;
    into.top_logprobs.push(dict);
  }

  /** Echoed prompt tokens with their prompt log-probabilities (entries[0] is null). */
  prompt(into: CompletionLogprobs, ids: readonly number[], entries: readonly PromptLogprob[]): void {
    ids.forEach((id, i) => {
      const e = entries[i];
      this.entry(into, id, e ? e.logprob : null, e ? e.top : null);
    });
  }

  generated(into: CompletionLogprobs, tokens: readonly EmittedToken[]): void {
    for (const t of tokens) this.entry(into, t.id, t.logprob, t.top);
  }
}

export const emptyCompletionLogprobs = (): CompletionLogprobs => ({ text_offset: [], token_logprobs: [], tokens: [], top_logprobs: [] });

export function chatLogprobs(names: TokenNames, tokens: readonly EmittedToken[], topK: number) {
  return tokens.map((t) => ({
    token: names.name(t.id),
    logprob: t.logprob,
    bytes: names.bytes(t.id),
    top_logprobs: t.top.slice(0, topK).map((x) => ({ token: names.name(x.id), logprob: x.logprob, bytes: names.bytes(x.id) })),
  }));
}

export function promptLogprobsJson(names: TokenNames, entries: readonly PromptLogprob[]) {
  const rank = (e: NonNullable<PromptLogprob>, id: number) => (id === e.id ? e.rank : e.top.findIndex((t) => t.id === id) + 1);
  return entries.map((e) => {
    if (!e) return null;
    const out: Record<string, { logprob: number; rank: number; decoded_token: string }> = {};
    out[String(e.id)] = { logprob: e.logprob, rank: e.rank, decoded_token: names.name(e.id) };
    for (const t of e.top) out[String(t.id)] ??= { logprob: t.logprob, rank: rank(e, t.id), decoded_token: names.name(t.id) };
    return out;
  });
}
