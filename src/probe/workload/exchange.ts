/**
 * One workload request on one server: a greedy generation (with prompt_logprobs when the trace asks),
 * or a streamed one that the client abandons after k tokens (a client disconnect, which a vLLM-like
 * server must treat as an abort).
 */
import type { Generation, ScoredToken } from '../../oracle/types.js';
import type { CallResult } from '../client.js';
import { lengthProblem } from '../early-stop.js';
import { streamedEvents } from '../sse-reader.js';
import { StreamTokenCounter, type CountedBy } from '../stream-tokens.js';
import { generationRequest } from '../requests.js';
import { generationFrom, parseCompletion, ResponseError, scoresFromPromptLogprobs } from '../responses.js';
import type { ServerApi } from '../server-api.js';
import type { TraceRequest } from './trace.js';

export interface Exchanged {
  /** Choice 0 (the only one unless the request has n > 1). */
  generation: Generation;
  /** Every choice, in index order, when the request has n > 1. */
  choices?: Generation[];
  /** Each prompt token's log-probability under the server (from position 1; position 0 has none). */
  promptScores?: ScoredToken[];
}

export async function exchange(
  api: ServerApi,
  r: TraceRequest,
  logprobs: number,
  seed: number,
  signal?: AbortSignal,
): Promise<CallResult<Exchanged>> {
  const body = {
    ...generationRequest(api.model, r.prompt, { maxTokens: r.maxTokens, logprobs, seed }),
    ...(r.promptLogprobs ? { prompt_logprobs: 1 } : {}),
    ...(r.n !== undefined ? parallelSampling(r.n) : {}),
  };
  const res = await api.client.postJson('/v1/completions', body, signal);
  if (!res.ok) return res;
  try {
    const parsed = parseCompletion(res.value);
    const choices = Array.from({ length: r.n ?? 1 }, (_, i) => generationFrom(parsed, i));
    for (const [i, g] of choices.entries()) {
      const problem = lengthProblem(g, r.maxTokens);
      if (problem) throw new ResponseError(`${problem}${r.n ? ` in choice ${i}` : ''}`);
    }
    const promptScores = r.promptLogprobs ? scoresFromPromptLogprobs(parsed, r.prompt, 1) : undefined;
    return { ok: true, value: { generation: choices[0], ...(r.n !== undefined ? { choices } : {}), ...(promptScores ? { promptScores } : {}) }, attempts: res.attempts };
  } catch (e) {
    return { ok: false, error: `POST /v1/completions: ${(e as Error).message}`, attempts: res.attempts };
  }
}

/**
 * The sampling fields of a parallel-sampling request (and of each choice run alone): n > 1 needs a
 * temperature above 0 on vLLM, and top_k 1 keeps the sample the argmax, so greedy judging applies.
 */
export function parallelSampling(n: number): Record<string, unknown> {
  return { n, temperature: 1, top_k: 1 };
}

export interface StreamProgress {
  onTokens(count: number): void;
}

export interface StreamedThenCancelled {
  /** Tokens streamed before the client went away (or in all, when the server finished first). */
  tokens: number;
  /** False when the server finished the completion before the cancel could land. */
  cancelled: boolean;
  /** How the tokens were counted (stream-tokens.ts). */
  countedBy?: CountedBy;
  /** Streamed events: fewer than tokens when the server sends several tokens per event. */
  events: number;
}

/**
 * Streams `r` and disconnects once `r.cancelAfterTokens` tokens arrived — tokens, not events: one
 * event may carry several tokens or the whole completion. An event that reaches the count and
 * also ends the completion means the server finished before the cancel could land, and says so.
 */
export async function streamThenCancel(
  api: ServerApi,
  r: TraceRequest,
  progress: StreamProgress,
  signal?: AbortSignal,
): Promise<CallResult<StreamedThenCancelled>> {
  const { client, model } = api;
  const stop = new AbortController();
  const onOuter = () => stop.abort();
  signal?.addEventListener('abort', onOuter, { once: true });
  const body = { ...generationRequest(model, r.prompt, { maxTokens: r.maxTokens, logprobs: 0, seed: 0 }), stream: true };
  const counter = new StreamTokenCounter(async (text) => {
    const t = await api.tokenize(text, stop.signal, { addSpecialTokens: false });
    if (!t.ok) throw new Error(`counting streamed text with /tokenize: ${t.error}`);
    return t.value.length;
  });
  let events = 0;
  const result = (cancelled: boolean): CallResult<StreamedThenCancelled> => ({
    ok: true,
    value: { tokens: counter.tokens, cancelled, events, ...(counter.countedBy ? { countedBy: counter.countedBy } : {}) },
    attempts: [],
  });
  try {
    const res = await fetch(`${client.baseUrl}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(client.authHeader ? { authorization: client.authHeader } : {}) },
      body: JSON.stringify(body),
      signal: stop.signal,
    });
    if (!res.ok || !res.body) return { ok: false, error: `POST /v1/completions (stream): HTTP ${res.status}`, attempts: [] };
    for await (const event of streamedEvents(res.body as AsyncIterable<Uint8Array>)) {
      events++;
      const e = await counter.add(event);
      if (e.error) {
        stop.abort();
        return { ok: false, error: `POST /v1/completions (stream): ${client.redact(e.error)}`, attempts: [] };
      }
      progress.onTokens(counter.tokens);
      if (counter.finished) break;
      if (counter.tokens >= (r.cancelAfterTokens ?? Infinity)) {
        stop.abort();
        return result(true);
      }
    }
    stop.abort();
    return result(false);
  } catch (e) {
    if (stop.signal.aborted && !signal?.aborted && counter.tokens >= (r.cancelAfterTokens ?? Infinity)) return result(true);
    return { ok: false, error: `POST /v1/completions (stream): ${client.redact((e as Error).message)}`, attempts: [] };
  } finally {
    signal?.removeEventListener('abort', onOuter);
  }
}
