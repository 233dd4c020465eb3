/**
 * llama.cpp's server (llama-server) answered through its native POST /completion: token-id prompts,
 * `n_predict`, `ignore_eos`, and with `n_probs: k` a `completion_probabilities` entry per generated
 * token — `{id, token, logprob, bytes, top_logprobs: [{id, token, logprob, bytes}]}` — so token ids
 * and log-probabilities come back without vLLM's extensions (ggml-org/llama.cpp
 * tools/server/tests/unit/test_completion.py: test_n_probs, test_n_probs_stream). Its OpenAI route
 * /v1/completions carries text only. Older releases (before the `logprob` entries) gave
 * `probs: [{tok_str, prob}]` instead: refused here with that reason, never guessed from.
 */
import { z } from 'zod';
import type { Generation, TopLogprob } from '../oracle/types.js';
import { greedySamplingFields, type GenerationSettings } from './requests.js';
import { ResponseError } from './responses.js';

const alternative = z.looseObject({ id: z.number().int(), logprob: z.number() });
const probability = alternative.extend({ top_logprobs: z.array(alternative) });

const completion = z.looseObject({
  content: z.string(),
  tokens: z.array(z.number().int()).optional(),
  stop: z.boolean().optional(),
  stop_type: z.string().optional(),
  completion_probabilities: z.array(z.unknown()).optional(),
});

/** Greedy, fixed-length generation with llama-server's field names. */
export function llamaServerCompletionRequest(
  prompt: readonly number[],
  s: GenerationSettings,
): Record<string, unknown> {
  const g = greedySamplingFields(s.seed);
  return {
    prompt: [...prompt],
    n_predict: s.maxTokens,
    ignore_eos: true,
    temperature: g.temperature,
    top_k: 0,
    top_p: g.top_p,
    min_p: g.min_p,
    repeat_penalty: g.repetition_penalty,
    presence_penalty: g.presence_penalty,
    frequency_penalty: g.frequency_penalty,
    seed: s.seed,
    n_probs: Math.max(1, s.logprobs),
    return_tokens: true,
    stream: false,
  };
}

/** llama-server's stop_type → the finish reasons the rest of the probe reads. */
const FINISH: Record<string, string> = { limit: 'length', eos: 'stop', word: 'stop' };

export function generationFromLlamaServer(json: unknown): Generation {
  const r = completion.safeParse(json);
  if (!r.success)
    throw new ResponseError(
      `not a llama-server /completion response: ${r.error.issues[0]?.path.join('.') || '(root)'}: ${r.error.issues[0]?.message}`,
    );
  const probs = r.data.completion_probabilities;
  if (!probs)
    throw new ResponseError(
      'the /completion response has no completion_probabilities: the server ignored n_probs',
    );
  const steps = probs.map((p, i) => {
    const e = probability.safeParse(p);
    if (!e.success)
      throw new ResponseError(
        `completion_probabilities[${i}] has no id / logprob / top_logprobs (a llama-server from before log-probabilities were reported gives only probs: [{tok_str, prob}])`,
      );
    const top: TopLogprob[] = e.data.top_logprobs
      .map((t) => ({ token: t.id, logprob: t.logprob }))
      .sort((a, b) => b.logprob - a.logprob || a.token - b.token);
    return { token: e.data.id, logprob: e.data.logprob, top };
  });
  const ids = r.data.tokens;
  if (ids && ids.length > 0 && (ids.length !== steps.length || ids.some((id, i) => id !== steps[i].token)))
    throw new ResponseError('tokens and completion_probabilities disagree');
  const finishReason = r.data.stop_type ? (FINISH[r.data.stop_type] ?? r.data.stop_type) : undefined;
  return {
    tokens: steps.map((s) => s.token),
    steps,
    text: r.data.content,
    ...(finishReason ? { finishReason } : {}),
  };
}

/** GET /props answers only on llama-server (`default_generation_settings`, `total_slots`). */
export function isLlamaServerProps(json: unknown): boolean {
  return z
    .looseObject({ default_generation_settings: z.looseObject({}), total_slots: z.number() })
    .safeParse(json).success;
}
