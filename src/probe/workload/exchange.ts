/**
 * One workload request on one server: a greedy generation (with prompt_logprobs when the trace asks),
 * or a streamed one that the client abandons after k tokens (a client disconnect, which a vLLM-like
 * server must treat as an abort).
 */
import type { Generation, ScoredToken } from '../../oracle/types.js';
import type { CallResult, ProbeClient } from '../client.js';
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
    for (const [i, g] of choices.entries())
      if (g.tokens.length !== r.maxTokens) throw new ResponseError(`asked for ${r.maxTokens} tokens with ignore_eos, got ${g.tokens.length}${r.n ? ` in choice ${i}` : ''}`);
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

/**
 * Streams `r` and disconnects after `r.cancelAfterTokens` tokens. Resolves with how many tokens
 * arrived and whether the cancel happened before the server finished on its own.
 */
export async function streamThenCancel(
  client: ProbeClient,
  model: string | undefined,
  r: TraceRequest,
  progress: StreamProgress,
  signal?: AbortSignal,
): Promise<CallResult<{ tokens: number; cancelled: boolean }>> {
  const stop = new AbortController();
  const onOuter = () => stop.abort();
  signal?.addEventListener('abort', onOuter, { once: true });
  const body = { ...generationRequest(model, r.prompt, { maxTokens: r.maxTokens, logprobs: 0, seed: 0 }), stream: true };
  let tokens = 0;
  try {
    const res = await fetch(`${client.baseUrl}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(client.authHeader ? { authorization: client.authHeader } : {}) },
      body: JSON.stringify(body),
      signal: stop.signal,
    });
    if (!res.ok || !res.body) return { ok: false, error: `POST /v1/completions (stream): HTTP ${res.status}`, attempts: [] };
    const decoder = new TextDecoder();
    let buffered = '';
    for await (const chunk of res.body) {
      buffered += decoder.decode(chunk as Uint8Array, { stream: true });
      const events = buffered.split('\n\n');
      buffered = events.pop() ?? '';
      for (const e of events) {
        const data = e.replace(/^data: ?/, '').trim();
        if (!data || data === '[DONE]') continue;
        tokens++;
        progress.onTokens(tokens);
        if (tokens >= (r.cancelAfterTokens ?? Infinity)) {
          stop.abort();
          return { ok: true, value: { tokens, cancelled: true }, attempts: [] };
        }
      }
    }
    return { ok: true, value: { tokens, cancelled: false }, attempts: [] };
  } catch (e) {
    if (stop.signal.aborted && !signal?.aborted) return { ok: true, value: { tokens, cancelled: true }, attempts: [] };
    return { ok: false, error: `POST /v1/completions (stream): ${(e as Error).message}`, attempts: [] };
  } finally {
    signal?.removeEventListener('abort', onOuter);
  }
}
