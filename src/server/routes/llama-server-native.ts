/**
 * llama.cpp's server (llama-server) native endpoints, for `engine serve --api llama-server` (field
 * names as in ggml-org/llama.cpp tools/server/tests/unit/test_completion.py @ 0876d422: test_n_probs,
 * test_completion, and tools/server/README.md):
 *   POST /completion  { prompt: text | token ids, n_predict (-1: until the context is full),
 *                     temperature, top_k, top_p, seed, ignore_eos, stop, n_probs, return_tokens }
 *                     → { index, content, tokens, id_slot, stop: true, model, tokens_predicted,
 *                     tokens_evaluated, stop_type: "limit" | "eos" | "word", stopping_word, truncated,
 *                     completion_probabilities: [{ id, token, bytes, logprob, top_logprobs: [{ id,
 *                     token, bytes, logprob }] }] (with n_probs > 0), timings: { prompt_n, predicted_n } }
 *   GET /props        { default_generation_settings: { n_ctx }, total_slots, model_path }
 *   POST /tokenize    { content, add_special (default false) } → { tokens }: a body without `content`
 *                     (vLLM's `prompt`) tokenizes nothing, as llama-server v0.4.0 answers { tokens: [] }
 *   POST /detokenize  { tokens } → { content }
 * Streaming /completion is not offered (400).
 */
import type { Hono } from 'hono';
import { z } from 'zod';
import type { EmittedToken } from '../../engine/sequence.js';
import type { ServerContext } from '../context.js';
import { badRequest } from '../errors.js';
import { checkTokenIds, collectGeneration, ensureReady, planGeneration } from '../generation.js';
import { readJson } from '../http-body.js';
import { parseBody } from '../request-fields.js';

const completionSchema = z.looseObject({
  prompt: z.union([z.string(), z.array(z.int().min(0)).min(1)]),
  n_predict: z.int().min(-1).nullish(),
  temperature: z.number().min(0).nullish(),
  top_k: z.int().min(0).nullish(),
  top_p: z.number().gt(0).max(1).nullish(),
  seed: z.int().nullish(),
  ignore_eos: z.boolean().nullish(),
  stop: z.array(z.string()).nullish(),
  n_probs: z.int().min(0).nullish(),
  return_tokens: z.boolean().nullish(),
  stream: z.boolean().nullish(),
});

const tokenizeSchema = z.looseObject({ content: z.string().nullish(), add_special: z.boolean().nullish() });
const detokenizeSchema = z.looseObject({ tokens: z.array(z.int().min(0)) });

const STOP_TYPE: Record<string, string> = { length: 'limit', stop: 'eos', abort: 'none' };

export function registerLlamaServerNative(app: Hono, ctx: ServerContext): void {
  const token = (id: number) => {
    const text = ctx.tokenizer.decode([id]);
    return { id, token: text, bytes: [...new TextEncoder().encode(text)] };
  };
  const probabilities = (t: EmittedToken, k: number) => ({
    ...token(t.id),
    logprob: t.logprob,
    top_logprobs: t.top.slice(0, k).map((a) => ({ ...token(a.id), logprob: a.logprob })),
  });

  app.post('/completion', async (c) => {
    const body = parseBody(completionSchema, await readJson(c));
    if (body.stream)
      throw badRequest('streaming /completion is not offered by the faultline engine', 'stream');
    const ids =
      typeof body.prompt === 'string' ? ctx.tokenizer.encode(body.prompt, { addBos: true }) : body.prompt;
    const room = ctx.maxModelLen - ids.length;
    const nPredict = body.n_predict == null || body.n_predict < 0 ? room : body.n_predict;
    if (nPredict < 1)
      throw badRequest(
        `n_predict ${nPredict}: nothing to generate (the prompt has ${ids.length} of ${ctx.maxModelLen} tokens)`,
        'n_predict',
      );
    const k = body.n_probs ?? 0;
    const plan = planGeneration(
      ctx,
      ids,
      {
        temperature: body.temperature,
        top_k: body.top_k === 0 ? -1 : body.top_k,
        top_p: body.top_p,
        seed: body.seed,
        ignore_eos: body.ignore_eos,
        stop: body.stop,
      },
      { maxTokens: nPredict, logprobs: k > 0 ? k : null, scoreOnly: false, promptLogprobs: null },
    );
    ensureReady(ctx);
    const r = await collectGeneration(ctx, plan, c.req.raw.signal);
    const stopType =
      r.finish.reason === 'stop' && typeof r.finish.stopReason === 'string'
        ? 'word'
        : (STOP_TYPE[r.finish.reason] ?? 'none');
    return c.json({
      index: 0,
      content: r.text,
      tokens: body.return_tokens ? r.tokens.map((t) => t.id) : [],
      id_slot: 0,
      stop: true,
      model: ctx.modelId,
      tokens_predicted: r.tokens.length,
      tokens_evaluated: ids.length,
      stop_type: stopType,
      stopping_word: typeof r.finish.stopReason === 'string' ? r.finish.stopReason : '',
      truncated: false,
      ...(k > 0 ? { completion_probabilities: r.tokens.map((t) => probabilities(t, k)) } : {}),
      timings: { prompt_n: ids.length, predicted_n: r.tokens.length },
    });
  });

  app.post('/tokenize', async (c) => {
    const body = parseBody(tokenizeSchema, await readJson(c));
    const tokens = ctx.tokenizer.encode(body.content ?? '', { addBos: body.add_special ?? false });
    // the BOS alone is what llama-server gives for an empty text with add_special
    return c.json({
      tokens:
        body.content === undefined || body.content === ''
          ? tokens.slice(0, body.add_special ? 1 : 0)
          : tokens,
    });
  });
  app.post('/detokenize', async (c) => {
    const body = parseBody(detokenizeSchema, await readJson(c));
    checkTokenIds(ctx, body.tokens, 'tokens');
    return c.json({ content: ctx.tokenizer.decode(body.tokens) });
  });

  app.get('/props', (c) =>
    c.json({
      default_generation_settings: { n_ctx: ctx.maxModelLen },
      total_slots: ctx.runner ? 1 : 0,
      model_path: ctx.modelId,
    }),
  );
}
