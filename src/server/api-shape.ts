/**
 * The API shape the server answers in. `vllm` (the default): vLLM's OpenAI-compatible API with its
 * extensions. `sglang`: SGLang's — the native POST /generate (token ids in, token-id log-probabilities
 * of prompt and output out), GET /model_info and /get_model_info, GET /health_generate, and its
 * OpenAI routes without vLLM's extensions: SGLang's CompletionRequest has no prompt_logprobs and no
 * return_tokens_as_token_ids (sgl-project/sglang: python/sglang/srt/entrypoints/openai/protocol.py
 * @ 65d3b47f), so they are ignored, as pydantic ignores unknown fields there. `llama-server`:
 * llama.cpp's native POST /completion (token ids and `n_probs` log-probabilities) and GET /props
 * beside the OpenAI routes (routes/llama-server-native.ts).
 */
export type ApiShape = 'vllm' | 'sglang' | 'llama-server';
export const API_SHAPES: readonly ApiShape[] = ['vllm', 'sglang', 'llama-server'];

/** vLLM-only request fields SGLang's and llama-server's OpenAI routes ignore. */
const VLLM_ONLY_FIELDS = ['prompt_logprobs', 'return_tokens_as_token_ids'] as const;

export function withoutVllmExtensions<T extends Record<string, unknown>>(shape: ApiShape, body: T): T {
  if (shape === 'vllm') return body;
  const out: Record<string, unknown> = { ...body };
  for (const f of VLLM_ONLY_FIELDS) delete out[f];
  return out as T;
}

/**
 * Departures from the full vLLM API that real servers show, for testing clients against them
 * (`engine serve --serve-quirk NAME …`):
 *
 *   no-kv-capacity    GET /metrics without vllm:cache_config_info, as servers that do not report
 *                     their KV capacity (llama-server, Ollama, TGI) answer
 *   stop-at-token=ID  ignore_eos and min_tokens are dropped, as routes without them (Ollama's, TGI's
 *                     OpenAI routes) drop unknown fields, and token ID ends a generation as an
 *                     end-of-sequence token would (the test model never emits its own): a server
 *                     that stops early
 */
export interface ServeQuirks {
  noKvCapacity: boolean;
  stopAtToken?: number;
}

export const NO_QUIRKS: ServeQuirks = { noKvCapacity: false };
export const QUIRK_NAMES = ['no-kv-capacity', 'stop-at-token=ID'] as const;

/** Parses `--serve-quirk` words; undefined + the bad word when one is not a quirk. */
export function parseQuirks(words: readonly string[]): { quirks: ServeQuirks } | { bad: string } {
  const quirks: ServeQuirks = { ...NO_QUIRKS };
  for (const w of words) {
    const stop = /^stop-at-token=(\d+)$/.exec(w);
    if (w === 'no-kv-capacity') quirks.noKvCapacity = true;
    else if (stop) quirks.stopAtToken = Number(stop[1]);
    else return { bad: w };
  }
  return { quirks };
}

/** The request as a server with these quirks reads it. */
export function withQuirks<T extends Record<string, unknown>>(q: ServeQuirks, body: T): T {
  if (q.stopAtToken === undefined) return body;
  const out: Record<string, unknown> = { ...body };
  delete out.ignore_eos;
  delete out.min_tokens;
  const ids = Array.isArray(out.stop_token_ids) ? (out.stop_token_ids as unknown[]) : [];
  out.stop_token_ids = [...ids, q.stopAtToken];
  return out as T;
}

/** GET /metrics as a server that does not report its KV capacity answers it. */
export function metricsWithQuirks(q: ServeQuirks, text: string): string {
  if (!q.noKvCapacity) return text;
  return text
    .split('\n')
    .filter((l) => !l.includes('vllm:cache_config_info'))
    .join('\n');
}
