/**
 * vLLM-shaped responses → the oracle's plain data (oracle/types.ts). Field names and shapes follow
 * vLLM's OpenAI server (research notes §4): completion choices with `logprobs` {tokens,
 * token_logprobs, top_logprobs}, tokens as "token_id:N" under return_tokens_as_token_ids, and
 * `prompt_logprobs` as a list of null | {id: {logprob, rank, decoded_token}}.
 * Anything else is a parse error with a message saying what was missing — never a guess.
 */
import { z } from 'zod';
import type { Generation, GeneratedStep, ScoredToken, TopLogprob } from '../oracle/types.js';

const logprobEntry = z.looseObject({
  logprob: z.number(),
  rank: z.number().int().nullish(),
  decoded_token: z.string().nullish(),
});
const promptLogprobs = z.array(z.record(z.string(), logprobEntry).nullable());

const completionLogprobs = z.looseObject({
  tokens: z.array(z.string()),
  token_logprobs: z.array(z.number().nullable()),
  top_logprobs: z.array(z.record(z.string(), z.number()).nullable()).nullish(),
});

const choice = z.looseObject({
  index: z.number().int().optional(),
  text: z.string().optional(),
  logprobs: completionLogprobs.nullish(),
  finish_reason: z.string().nullish(),
  prompt_logprobs: promptLogprobs.nullish(),
});

export const completionResponse = z.looseObject({
  choices: z.array(choice).min(1),
  prompt_logprobs: promptLogprobs.nullish(),
  usage: z
    .looseObject({ prompt_tokens: z.number().int(), completion_tokens: z.number().int().optional() })
    .nullish(),
});

export type CompletionResponse = z.infer<typeof completionResponse>;

export class ResponseError extends Error {
  override name = 'ResponseError';
}

function describeZod(e: z.ZodError): string {
  return e.issues
    .slice(0, 3)
    .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    .join('; ');
}

export function parseCompletion(json: unknown): CompletionResponse {
  const r = completionResponse.safeParse(json);
  if (!r.success) throw new ResponseError(`not a completion response: ${describeZod(r.error)}`);
  return r.data;
}

/** "token_id:123" → 123 (what return_tokens_as_token_ids makes of every token string). */
export function tokenIdOf(key: string): number {
  const m = /^token_id:(\d+)$/.exec(key);
  if (!m)
    throw new ResponseError(
      `token ${JSON.stringify(key)} is not of the form "token_id:N": the server ignored return_tokens_as_token_ids`,
    );
  return Number(m[1]);
}

function sortedTop(dict: Record<string, number> | null | undefined): TopLogprob[] {
  if (!dict) return [];
  return Object.entries(dict)
    .map(([k, lp]) => ({ token: tokenIdOf(k), logprob: lp }))
    .sort((a, b) => b.logprob - a.logprob || a.token - b.token);
}

/** The generated tokens of one choice (by its `index`; 0 by default) with their top-k lists. */
export function generationFrom(res: CompletionResponse, choice = 0): Generation {
  const c =
    res.choices.find((x) => x.index === choice) ??
    (res.choices.every((x) => x.index === undefined) ? res.choices[choice] : undefined);
  if (!c) throw new ResponseError(`completion has no choice ${choice} (${res.choices.length} choice(s))`);
  const lp = c.logprobs;
  if (!lp) throw new ResponseError('completion has no logprobs: the server ignored `logprobs`');
  if (!lp.top_logprobs) throw new ResponseError('completion logprobs have no top_logprobs');
  if (lp.tokens.length !== lp.token_logprobs.length || lp.tokens.length !== lp.top_logprobs.length)
    throw new ResponseError(
      `logprobs arrays disagree in length: tokens ${lp.tokens.length}, token_logprobs ${lp.token_logprobs.length}, top_logprobs ${lp.top_logprobs.length}`,
    );
  const steps: GeneratedStep[] = lp.tokens.map((t, i) => {
    const token = tokenIdOf(t);
    const logprob = lp.token_logprobs[i];
    if (logprob === null) throw new ResponseError(`generated token ${i} has a null logprob`);
    return { token, logprob, top: sortedTop(lp.top_logprobs![i]) };
  });
  return {
    tokens: steps.map((s) => s.token),
    steps,
    finishReason: c.finish_reason ?? undefined,
    text: c.text,
  };
}

/**
 * The reference's scores of `sequence[from…]` from a prompt_logprobs response for the token-id
 * prompt `sequence`. vLLM lists, per position, the top-k and the actual token with its exact rank.
 */
export function scoresFromPromptLogprobs(
  res: CompletionResponse,
  sequence: readonly number[],
  from: number,
): ScoredToken[] {
  const pl = res.choices[0].prompt_logprobs ?? res.prompt_logprobs;
  if (!pl) throw new ResponseError('response has no prompt_logprobs');
  if (pl.length !== sequence.length)
    throw new ResponseError(`prompt_logprobs has ${pl.length} entries for a ${sequence.length}-token prompt`);
  const out: ScoredToken[] = [];
  for (let i = from; i < sequence.length; i++) {
    const entry = pl[i];
    if (!entry) throw new ResponseError(`prompt_logprobs[${i}] is null`);
    const token = sequence[i];
    let best: { token: number; logprob: number } | undefined;
    for (const [k, v] of Object.entries(entry)) {
      const id = Number(k);
      if (!Number.isInteger(id))
        throw new ResponseError(`prompt_logprobs[${i}] has a non-numeric key ${JSON.stringify(k)}`);
      if (!best || v.logprob > best.logprob) best = { token: id, logprob: v.logprob };
    }
    const own = entry[String(token)];
    const k = Object.keys(entry).length;
    if (!best) throw new ResponseError(`prompt_logprobs[${i}] is empty`);
    if (own) {
      const rank = own.rank ?? 1 + Object.values(entry).filter((e) => e.logprob > own.logprob).length;
      out.push({ token, logprob: own.logprob, rank, topLogprob: best.logprob, topToken: best.token });
    } else {
      // the token is not listed: all we know is that it ranks below every listed one
      const floor = Math.min(...Object.values(entry).map((e) => e.logprob));
      out.push({
        token,
        logprob: floor,
        rank: k + 1,
        rankIsLowerBound: true,
        topLogprob: best.logprob,
        topToken: best.token,
      });
    }
  }
  return out;
}

/** The same scores from an echo + logprobs response (the prompt's tokens come back as the first entries). */
export function scoresFromEcho(
  res: CompletionResponse,
  sequence: readonly number[],
  from: number,
): ScoredToken[] {
  const lp = res.choices[0].logprobs;
  if (!lp || !lp.top_logprobs) throw new ResponseError('echo response has no logprobs');
  if (lp.tokens.length < sequence.length)
    throw new ResponseError(`echo returned ${lp.tokens.length} tokens for a ${sequence.length}-token prompt`);
  const out: ScoredToken[] = [];
  for (let i = from; i < sequence.length; i++) {
    const token = tokenIdOf(lp.tokens[i]);
    if (token !== sequence[i])
      throw new ResponseError(`echo token ${i} is ${token}, the prompt has ${sequence[i]}`);
    const logprob = lp.token_logprobs[i];
    const top = sortedTop(lp.top_logprobs[i]);
    if (logprob === null || top.length === 0) throw new ResponseError(`echo position ${i} has no logprobs`);
    const listed = top.some((e) => e.token === token);
    const rank = 1 + top.filter((e) => e.logprob > logprob).length;
    out.push({
      token,
      logprob,
      rank: listed ? rank : Math.max(rank, top.length + 1),
      rankIsLowerBound: !listed,
      topLogprob: top[0].logprob,
      topToken: top[0].token,
    });
  }
  return out;
}

const tokenizeResponse = z.looseObject({
  tokens: z.array(z.number().int().nonnegative()),
  count: z.number().int().optional(),
  max_model_len: z.number().int().optional(),
});
export function parseTokenize(json: unknown): { tokens: number[]; maxModelLen?: number } {
  const r = tokenizeResponse.safeParse(json);
  if (!r.success) throw new ResponseError(`not a /tokenize response: ${describeZod(r.error)}`);
  return { tokens: r.data.tokens, maxModelLen: r.data.max_model_len };
}

// vLLM answers { prompt }, llama-server { content }
const detokenizeResponse = z.union([
  z.looseObject({ prompt: z.string() }),
  z.looseObject({ content: z.string() }),
]);
export function parseDetokenize(json: unknown): string {
  const r = detokenizeResponse.safeParse(json);
  if (!r.success) throw new ResponseError(`not a /detokenize response: ${describeZod(r.error)}`);
  return typeof r.data.prompt === 'string' ? r.data.prompt : String(r.data.content);
}

const modelsResponse = z.looseObject({
  data: z.array(z.looseObject({ id: z.string(), max_model_len: z.number().int().nullish() })).min(1),
});
export function parseModels(json: unknown): { id: string; maxModelLen?: number } {
  const r = modelsResponse.safeParse(json);
  if (!r.success) throw new ResponseError(`not a /v1/models response: ${describeZod(r.error)}`);
  return { id: r.data.data[0].id, maxModelLen: r.data.data[0].max_model_len ?? undefined };
}
