/**
 * The request bodies a probe sends. Every sampling field is explicit: vLLM fills unset fields from
 * the model's generation_config.json (temperature included), so two servers given the same
 * partial request can silently sample differently (research notes §4.1, §4.4).
 */

export interface GenerationSettings {
  maxTokens: number;
  /** Top-k alternatives per generated token (vLLM caps this at --max-logprobs, default 20). */
  logprobs: number;
  seed: number;
  /** Request-level fields under test (e.g. repetition_penalty), over the pinned ones. */
  requestFields?: Record<string, unknown>;
}

/** Fields that pin greedy decoding on every OpenAI-compatible server we know of. */
export function greedySamplingFields(seed: number): Record<string, unknown> {
  return {
    temperature: 0,
    top_p: 1,
    top_k: -1, // "consider all tokens" in every vLLM version (0 is rejected by older ones)
    min_p: 0,
    presence_penalty: 0,
    frequency_penalty: 0,
    repetition_penalty: 1,
    n: 1,
    seed,
    stop: [],
    stop_token_ids: [],
    stream: false,
  };
}

/** Greedy generation for a token-id prompt, fixed length (ignore_eos) so both sides produce the same count. */
export function generationRequest(
  model: string | undefined,
  prompt: readonly number[],
  s: GenerationSettings,
): Record<string, unknown> {
  return {
    ...(model === undefined ? {} : { model }),
    prompt: [...prompt],
    ...greedySamplingFields(s.seed),
    max_tokens: s.maxTokens,
    min_tokens: 0,
    ignore_eos: true,
    logprobs: s.logprobs,
    echo: false,
    return_tokens_as_token_ids: true,
    ...s.requestFields,
  };
}

export type ScoringMode = 'prompt_logprobs' | 'echo';

/**
 * Score a whole token sequence (prompt + someone's continuation) without generating from it:
 * prompt_logprobs (vLLM: exact rank of every prompt token) or echo + logprobs (lm-eval's trick).
 */
export function scoringRequest(
  model: string | undefined,
  sequence: readonly number[],
  logprobs: number,
  mode: ScoringMode,
  seed: number,
): Record<string, unknown> {
  const common = {
    ...(model === undefined ? {} : { model }),
    prompt: [...sequence],
    ...greedySamplingFields(seed),
    max_tokens: 1,
    ignore_eos: true,
    return_tokens_as_token_ids: true,
  };
  return mode === 'prompt_logprobs'
    ? { ...common, prompt_logprobs: logprobs, echo: false }
    : { ...common, echo: true, logprobs };
}

export function tokenizeRequest(
  model: string | undefined,
  text: string,
  addSpecialTokens = true,
  api: 'openai' | 'sglang' | 'llama-server' = 'openai',
): Record<string, unknown> {
  // llama-server reads `content` and `add_special`, and answers a body without `content` with no tokens
  if (api === 'llama-server') return { content: text, add_special: addSpecialTokens };
  return { ...(model === undefined ? {} : { model }), prompt: text, add_special_tokens: addSpecialTokens };
}

export function detokenizeRequest(
  model: string | undefined,
  tokens: readonly number[],
): Record<string, unknown> {
  return { ...(model === undefined ? {} : { model }), tokens: [...tokens] };
}
