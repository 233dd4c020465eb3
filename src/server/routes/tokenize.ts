/**
 * POST /tokenize (text prompt, or chat messages through the chat template) → {count, max_model_len,
 * tokens, token_strs?}; POST /detokenize {tokens} → {prompt}. vLLM's Tokenizer API shapes.
 */
import type { Hono } from 'hono';
import type { ServerContext } from '../context.js';
import { ApiError } from '../errors.js';
import { checkTokenIds } from '../generation.js';
import { readJson } from '../http-body.js';
import { detokenizeSchema, parseBody, tokenizeSchema } from '../request-fields.js';
import { chatPromptIds } from './chat-completions.js';

function checkModel(ctx: ServerContext, model: string | null | undefined): void {
  if (model !== undefined && model !== null && model !== ctx.modelId) throw new ApiError(404, `The model \`${model}\` does not exist.`, 'model');
}

export function registerTokenize(app: Hono, ctx: ServerContext): void {
  app.post('/tokenize', async (c) => {
    const body = parseBody(tokenizeSchema, await readJson(c));
    checkModel(ctx, body.model);
    const chat = body as Parameters<typeof chatPromptIds>[1];
    const tokens = Array.isArray(chat.messages) ? chatPromptIds(ctx, chat) : ctx.tokenizer.encode(String(body.prompt), { addBos: body.add_special_tokens ?? true });
    return c.json({
      count: tokens.length,
      max_model_len: ctx.maxModelLen,
      tokens,
      ...(body.return_token_strs ? { token_strs: tokens.map((t) => ctx.tokenizer.tokenText(t)) } : {}),
    });
  });
  app.post('/detokenize', async (c) => {
    const body = parseBody(detokenizeSchema, await readJson(c));
    checkModel(ctx, body.model);
    checkTokenIds(ctx, body.tokens, 'tokens');
    return c.json({ prompt: ctx.tokenizer.decode(body.tokens) });
  });
}
