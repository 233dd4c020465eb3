/**
 * Request validation (zod) for the generation endpoints, with vLLM's field names and defaults
 * (research correctness-oracles.md §4.1–4.2). Unknown fields are ignored, as vLLM does. Fields the
 * engine cannot honour are accepted only at their neutral value (e.g. presence_penalty 0, best_of 1), so
 * a client that sends every field explicitly — the probe does — works, and one that asks for
 * something unsupported gets a 400 that says what, never a silent difference.
 */
import { z } from 'zod';
import { badRequest } from './errors.js';

const neutral = <T extends z.ZodType>(schema: T, value: unknown, what: string) =>
  schema.nullish().refine((v) => v === null || v === undefined || v === value, { message: `only ${JSON.stringify(value)} is supported by the faultline engine (${what})` });

/** Sampling and stopping fields shared by /v1/completions and /v1/chat/completions. */
export const samplingFields = {
  model: z.string().nullish(),
  temperature: z.number().min(0).nullish(),
  top_p: z.number().gt(0).max(1).nullish(),
  top_k: z.int().min(-1).nullish(),
  seed: z.int().nullish(),
  ignore_eos: z.boolean().nullish(),
  min_tokens: z.int().min(0).nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  stop_token_ids: z.array(z.int().min(0)).nullish(),
  include_stop_str_in_output: z.boolean().nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish(), continuous_usage_stats: z.boolean().nullish() }).nullish(),
  prompt_logprobs: z.int().min(-1).nullish(),
  return_tokens_as_token_ids: z.boolean().nullish(),
  return_token_ids: z.boolean().nullish(),
  skip_special_tokens: z.boolean().nullish(),
  spaces_between_special_tokens: z.boolean().nullish(),
  user: z.string().nullish(),
  n: z.int().min(1).nullish(),
  best_of: neutral(z.int(), 1, 'no beam search'),
  min_p: neutral(z.number(), 0, 'no min-p sampling'),
  presence_penalty: neutral(z.number(), 0, 'no penalties'),
  frequency_penalty: neutral(z.number(), 0, 'no penalties'),
  repetition_penalty: neutral(z.number(), 1, 'no penalties'),
  use_beam_search: neutral(z.boolean(), false, 'no beam search'),
  logit_bias: z.record(z.string(), z.number()).nullish().refine((v) => !v || Object.keys(v).length === 0, { message: 'logit_bias is not supported by the faultline engine' }),
};

/**
 * vLLM refuses stream_options on a request that does not stream (a before-validator of both
 * request models, vllm/entrypoints/openai/{completion,chat_completion}/protocol.py @ v0.23.0);
 * as in Python, an empty object counts as not given.
 */
const streamOptionsNeedStream = {
  check: (b: { stream?: boolean | null; stream_options?: object | null }) => !(b.stream_options && Object.keys(b.stream_options).length > 0 && !b.stream),
  params: { message: 'Stream options can only be defined when `stream=True`.', path: ['stream_options'] },
};

const tokenIds = z.array(z.int());
export const completionSchema = z.looseObject({
  ...samplingFields,
  prompt: z.union([z.string(), z.array(z.string()), tokenIds, z.array(tokenIds)]),
  max_tokens: z.int().min(0).nullish(),
  logprobs: z.int().min(0).nullish(),
  echo: z.boolean().nullish(),
  add_special_tokens: z.boolean().nullish(),
  suffix: neutral(z.string(), null, 'no suffix (fill-in-the-middle)'),
}).refine(streamOptionsNeedStream.check, streamOptionsNeedStream.params);
export type CompletionBody = z.infer<typeof completionSchema>;

const contentPart = z.looseObject({ type: z.string(), text: z.string().optional() });
export const chatSchema = z.looseObject({
  ...samplingFields,
  messages: z.array(z.looseObject({ role: z.string(), content: z.union([z.string(), z.array(contentPart), z.null()]).optional() })),
  max_tokens: z.int().min(1).nullish(),
  max_completion_tokens: z.int().min(1).nullish(),
  logprobs: z.boolean().nullish(),
  top_logprobs: z.int().min(0).nullish(),
  echo: z.boolean().nullish(),
  add_generation_prompt: z.boolean().nullish(),
  continue_final_message: z.boolean().nullish(),
  add_special_tokens: z.boolean().nullish(),
  chat_template: neutral(z.string(), null, 'the built-in chat template only'),
  tools: z.array(z.unknown()).nullish().refine((v) => !v || v.length === 0, { message: 'tools are not supported by the faultline engine' }),
  response_format: z.looseObject({ type: z.string() }).nullish().refine((v) => !v || v.type === 'text', { message: 'only response_format {"type": "text"} is supported' }),
}).refine(streamOptionsNeedStream.check, streamOptionsNeedStream.params);
export type ChatBody = z.infer<typeof chatSchema>;

export const tokenizeSchema = z.union([
  z.looseObject({ model: z.string().nullish(), prompt: z.string(), add_special_tokens: z.boolean().nullish(), return_token_strs: z.boolean().nullish() }),
  z.looseObject({
    model: z.string().nullish(),
    messages: chatSchema.shape.messages,
    add_generation_prompt: z.boolean().nullish(),
    continue_final_message: z.boolean().nullish(),
    add_special_tokens: z.boolean().nullish(),
    return_token_strs: z.boolean().nullish(),
  }),
]);
export const detokenizeSchema = z.looseObject({ model: z.string().nullish(), tokens: z.array(z.int()) });

/** Parses a JSON body against a schema; a mismatch is a 400 naming the fields. */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('the request body must be a JSON object');
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  const issues = r.error.issues.slice(0, 5).map((i) => `${i.path.length ? i.path.join('.') : 'body'}: ${i.message}`);
  const first = r.error.issues[0]?.path[0];
  throw badRequest(issues.join('; '), typeof first === 'string' ? first : null);
}
