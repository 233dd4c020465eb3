/**
 * SGLang's native endpoints, for `engine serve --api sglang` (field names as in sgl-project/sglang:
 * python/sglang/srt/managers/io_struct.py GenerateReqInput and tokenizer_manager.py meta_info,
 * @ 65d3b47f):
 *   POST /generate   { text | input_ids, sampling_params: { max_new_tokens (128), temperature, top_p,
 *                    top_k, min_new_tokens, ignore_eos, stop, stop_token_ids, sampling_seed, … },
 *                    return_logprob, logprob_start_len (-1: from the last prompt token), top_logprobs_num }
 *                    → { text, output_ids, meta_info: { id, prompt_tokens, completion_tokens,
 *                    cached_tokens, finish_reason: { type, … }, input_token_logprobs,
 *                    output_token_logprobs, input_top_logprobs, output_top_logprobs } }
 *                    where each log-probability is [logprob | null, token_id, null] (no text asked).
 *   GET /model_info, /get_model_info   { model_path, tokenizer_path, is_generation }
 *   GET /health_generate               200 after one generated token (SGLang's readiness check)
 * Streaming /generate is not offered (400).
 */
import type { Hono } from 'hono';
import { z } from 'zod';
import type { PromptLogprob, EmittedToken } from '../../engine/sequence.js';
import type { ServerContext } from '../context.js';
import { badRequest } from '../errors.js';
import { collectGeneration, ensureReady, planGeneration } from '../generation.js';
import { newRequestId, readJson } from '../http-body.js';
import { parseBody } from '../request-fields.js';

const samplingParams = z.looseObject({
  max_new_tokens: z.int().min(0).nullish(),
  min_new_tokens: z.int().min(0).nullish(),
  temperature: z.number().min(0).nullish(),
  top_p: z.number().gt(0).max(1).nullish(),
  top_k: z.int().min(-1).nullish(),
  min_p: z.number().nullish(),
  ignore_eos: z.boolean().nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  stop_token_ids: z.array(z.int().min(0)).nullish(),
  sampling_seed: z.int().nullish(),
  n: z.int().nullish(),
  frequency_penalty: z.number().nullish(),
  presence_penalty: z.number().nullish(),
  repetition_penalty: z.number().nullish(),
});

const generateSchema = z.looseObject({
  text: z.string().nullish(),
  input_ids: z.array(z.int()).nullish(),
  sampling_params: samplingParams.nullish(),
  return_logprob: z.boolean().nullish(),
  logprob_start_len: z.int().min(-1).nullish(),
  top_logprobs_num: z.int().min(0).nullish(),
  return_text_in_logprobs: z.boolean().nullish(),
  stream: z.boolean().nullish(),
});

/** Sampling parameters the engine honours only at their neutral value (as on the OpenAI routes). */
const NEUTRAL: readonly ['n' | 'min_p' | 'frequency_penalty' | 'presence_penalty' | 'repetition_penalty', number][] = [
  ['n', 1],
  ['min_p', 0],
  ['frequency_penalty', 0],
  ['presence_penalty', 0],
  ['repetition_penalty', 1],
];

type Entry = [number | null, number, null];
const entry = (logprob: number | null, id: number): Entry => [logprob, id, null];
const topList = (top: readonly { id: number; logprob: number }[], k: number): Entry[] => top.slice(0, k).map((t) => entry(t.logprob, t.id));

function finishReason(r: { reason: string; stopReason: string | number | null }, completion: number) {
  if (r.reason === 'length') return { type: 'length', length: completion };
  if (r.reason === 'stop') return { type: 'stop', matched: r.stopReason };
  return { type: 'abort', message: 'aborted' };
}

function inputLogprobs(prompt: readonly number[], pl: readonly PromptLogprob[], start: number, k: number) {
  const tokens: Entry[] = [];
  const top: (Entry[] | null)[] = [];
  for (let i = start; i < prompt.length; i++) {
    const e = pl[i];
    tokens.push(entry(e ? e.logprob : null, prompt[i]));
    top.push(e && k > 0 ? topList(e.top, k) : null);
  }
  return { tokens, top };
}

function outputLogprobs(tokens: readonly EmittedToken[], k: number) {
  return { tokens: tokens.map((t) => entry(t.logprob, t.id)), top: tokens.map((t) => topList(t.top, k)) };
}

export function registerSglangNative(app: Hono, ctx: ServerContext): void {
  app.post('/generate', async (c) => {
    const body = parseBody(generateSchema, await readJson(c));
    if (body.stream) throw badRequest('streaming /generate is not offered by the faultline engine', 'stream');
    const sp = body.sampling_params ?? {};
    for (const [field, neutral] of NEUTRAL)
      if (sp[field] != null && sp[field] !== neutral)
        throw badRequest(`only ${neutral} is supported by the faultline engine (${field})`, `sampling_params.${field}`);
    if (body.input_ids == null && body.text == null) throw badRequest('give text or input_ids', 'input_ids');
    const ids = body.input_ids ?? ctx.tokenizer.encode(body.text ?? '', { addBos: true });
    const maxNew = sp.max_new_tokens ?? 128;
    const k = body.top_logprobs_num ?? 0;
    const wantLogprob = body.return_logprob ?? false;
    const start = body.logprob_start_len == null || body.logprob_start_len < 0 ? Math.max(0, ids.length - 1) : body.logprob_start_len;
    if (wantLogprob && start >= ids.length) throw badRequest(`logprob_start_len ${start} is not inside the ${ids.length}-token prompt`, 'logprob_start_len');
    const plan = planGeneration(
      ctx,
      ids,
      {
        temperature: sp.temperature,
        top_p: sp.top_p,
        top_k: sp.top_k,
        ignore_eos: sp.ignore_eos,
        min_tokens: sp.min_new_tokens,
        stop: sp.stop,
        stop_token_ids: sp.stop_token_ids,
        seed: sp.sampling_seed,
      },
      { maxTokens: maxNew, logprobs: wantLogprob ? k : null, scoreOnly: maxNew === 0, promptLogprobs: wantLogprob ? Math.max(k, 1) : null },
    );
    ensureReady(ctx);
    const r = await collectGeneration(ctx, plan, c.req.raw.signal);
    const tokens = maxNew === 0 ? [] : r.tokens;
    const meta: Record<string, unknown> = {
      id: newRequestId('gen'),
      prompt_tokens: ids.length,
      completion_tokens: tokens.length,
      cached_tokens: 0,
      finish_reason: finishReason(r.finish, tokens.length),
    };
    if (wantLogprob) {
      const input = inputLogprobs(ids, r.promptLogprobs ?? [], start, k);
      const output = outputLogprobs(tokens, k);
      Object.assign(meta, { input_token_logprobs: input.tokens, output_token_logprobs: output.tokens });
      if (k > 0) Object.assign(meta, { input_top_logprobs: input.top, output_top_logprobs: output.top });
    }
    return c.json({ text: maxNew === 0 ? '' : r.text, output_ids: tokens.map((t) => t.id), meta_info: meta });
  });

  const modelInfo = () => ({ model_path: ctx.modelId, tokenizer_path: ctx.modelId, is_generation: true, preferred_sampling_params: null });
  app.get('/model_info', (c) => c.json(modelInfo()));
  app.get('/get_model_info', (c) => c.json(modelInfo()));

  app.get('/health_generate', async (c) => {
    ensureReady(ctx);
    const plan = planGeneration(ctx, [ctx.tokenizer.bosId], { temperature: 0, ignore_eos: true }, { maxTokens: 1, logprobs: null, scoreOnly: false, promptLogprobs: null });
    await collectGeneration(ctx, plan, c.req.raw.signal);
    return c.body(null, 200);
  });
}
