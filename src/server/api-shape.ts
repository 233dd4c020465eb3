/**
 * The API shape the server answers in. `vllm` (the default): vLLM's OpenAI-compatible API with its
 * extensions. `sglang`: SGLang's — the native POST /generate (token ids in, token-id log-probabilities
 * of prompt and output out), GET /model_info and /get_model_info, GET /health_generate, and its
 * OpenAI routes without vLLM's extensions: SGLang's CompletionRequest has no prompt_logprobs and no
 * return_tokens_as_token_ids (sgl-project/sglang: python/sglang/srt/entrypoints/openai/protocol.py
 * @ 65d3b47f), so they are ignored, as pydantic ignores unknown fields there.
 */
export type ApiShape = 'vllm' | 'sglang';
export const API_SHAPES: readonly ApiShape[] = ['vllm', 'sglang'];

/** vLLM-only request fields an SGLang server ignores. */
const VLLM_ONLY_FIELDS = ['prompt_logprobs', 'return_tokens_as_token_ids'] as const;

export function withoutVllmExtensions<T extends Record<string, unknown>>(shape: ApiShape, body: T): T {
  if (shape !== 'sglang') return body;
  const out: Record<string, unknown> = { ...body };
  for (const f of VLLM_ONLY_FIELDS) delete out[f];
  return out as T;
}
