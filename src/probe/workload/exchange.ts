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
  generation: Generation;
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
  };
  const res = await api.client.postJson('/v1/completions', body, signal);
  if (!res.ok) return res;
  try {
    const parsed = parseCompletion(res.value);
    const generation = generationFrom(parsed);
    if (generation.tokens.length !== r.maxTokens)
      throw new ResponseError(`asked for ${r.maxTokens} tokens with ignore_eos, got ${generation.tokens.length}`);
    const promptScores = r.promptLogprobs ? scoresFromPromptLogprobs(parsed, r.prompt, 1) : undefined;
    return { ok: true, value: { generation, ...(promptScores ? { promptScores } : {}) }, attempts: res.attempts };
  } catch (e) {
    return { ok: false, error: `POST /v1/completions: ${(e as Error).message}`, attempts: res.attempts };
  }
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
