/**
 * POST /v1/chat/completions (vLLM's ChatCompletionRequest / ChatCompletionResponse): messages go
 * through the built-in chat template (chat-template.ts); max_completion_tokens (or the deprecated
 * max_tokens) defaults to the room left in max_model_len; logprobs + top_logprobs; echo prepends the
 * last message's content when it is an assistant message being continued; streaming as
 * "chat.completion.chunk" deltas (role first, then content, then finish_reason); n choices, each its own
 * sequence (generation.ts choicePlans).
 */
import type { Hono } from 'hono';
import { renderChat, messageText, type ChatMessage } from '../chat-template.js';
import type { ServerContext } from '../context.js';
import { badRequest } from '../errors.js';
import { choicePlans, collectGeneration, ensureReady, planGeneration, runGeneration, type GenerationPlan } from '../generation.js';
import { mergeTagged } from '../merge.js';
import { regroupDeltas } from '../stream-interval.js';
import { newRequestId, readJson, unixNow } from '../http-body.js';
import { chatLogprobs, promptLogprobsJson, TokenNames } from '../logprobs-format.js';
import { chatSchema, parseBody, type ChatBody } from '../request-fields.js';
import { sseResponse } from '../sse.js';

/** The chat prompt's token ids: BOS + the template's text (add_special_tokens defaults to false, as in vLLM: the template adds BOS). */
export function chatPromptIds(ctx: ServerContext, body: Pick<ChatBody, 'messages' | 'add_generation_prompt' | 'continue_final_message' | 'add_special_tokens'>): number[] {
  const continueFinal = body.continue_final_message ?? false;
  const text = renderChat(body.messages as ChatMessage[], { addGenerationPrompt: body.add_generation_prompt ?? !continueFinal, continueFinalMessage: continueFinal });
  return [ctx.tokenizer.bosId, ...ctx.tokenizer.encode(text, { addBos: body.add_special_tokens ?? false })];
}

export function registerChatCompletions(app: Hono, ctx: ServerContext): void {
  app.post('/v1/chat/completions', async (c) => {
    const body = parseBody(chatSchema, await readJson(c));
    const ids = chatPromptIds(ctx, body);
    const topLogprobs = body.top_logprobs ?? 0;
    if (body.top_logprobs !== null && body.top_logprobs !== undefined && !body.logprobs) throw badRequest('top_logprobs requires logprobs to be true', 'top_logprobs');
    if (body.prompt_logprobs !== undefined && body.prompt_logprobs !== null && body.stream) throw badRequest('prompt_logprobs is not available when stream is enabled', 'prompt_logprobs');
    const maxTokens = body.max_completion_tokens ?? body.max_tokens ?? Math.max(1, ctx.maxModelLen - ids.length);
    const plans = choicePlans(ctx, [planGeneration(ctx, ids, body, { maxTokens, logprobs: body.logprobs ? topLogprobs : null, scoreOnly: false, promptLogprobs: body.prompt_logprobs ?? null })], body.n);
    ensureReady(ctx);
    const names = new TokenNames(ctx.tokenizer, body.return_tokens_as_token_ids ?? ctx.returnTokensAsTokenIds);
    const last = body.messages[body.messages.length - 1] as ChatMessage | undefined;
    const echoText = body.echo && last && last.role === 'assistant' ? messageText(last, body.messages.length - 1) : '';
    const head = { id: newRequestId('chatcmpl'), created: unixNow(), model: ctx.modelId };
    const signal = c.req.raw.signal;
    if (body.stream) return sseResponse(streamChunks(ctx, plans, { head, names, logprobs: body.logprobs ?? false, topLogprobs, echoText, includeUsage: body.stream_options?.include_usage ?? false }, signal));

    const results = await Promise.all(plans.map((plan) => collectGeneration(ctx, plan, signal)));
    const completionTokens = results.reduce((n, r) => n + r.tokens.length, 0);
    return c.json({
      ...head,
      object: 'chat.completion',
      choices: results.map((r, index) => ({
        index,
        message: { role: 'assistant', content: echoText + r.text, reasoning_content: null, tool_calls: [] },
        logprobs: body.logprobs ? { content: chatLogprobs(names, r.tokens, topLogprobs) } : null,
        finish_reason: r.finish.reason,
        stop_reason: r.finish.stopReason,
        ...(body.return_token_ids ? { token_ids: r.tokens.map((t) => t.id) } : {}),
      })),
      usage: { prompt_tokens: ids.length, total_tokens: ids.length + completionTokens, completion_tokens: completionTokens, prompt_tokens_details: null },
      prompt_logprobs: results[0].promptLogprobs ? promptLogprobsJson(names, results[0].promptLogprobs) : null,
      ...(body.return_token_ids ? { prompt_token_ids: ids } : {}),
    });
  });
}

interface ChatStreamOptions {
  head: Record<string, unknown>;
  names: TokenNames;
  logprobs: boolean;
  topLogprobs: number;
  echoText: string;
  includeUsage: boolean;
}

async function* streamChunks(ctx: ServerContext, plans: GenerationPlan[], o: ChatStreamOptions, signal: AbortSignal): AsyncGenerator<object> {
  const chunk = (index: number, delta: Record<string, unknown>, logprobs: unknown, finish?: { reason: string; stopReason: string | number | null }) => ({
    ...o.head,
    object: 'chat.completion.chunk',
    choices: [{ index, delta, logprobs, finish_reason: finish?.reason ?? null, ...(finish ? { stop_reason: finish.stopReason } : {}) }],
  });
  // every choice opens with its role (and the echoed text), as vLLM streams n choices
  for (let i = 0; i < plans.length; i++) {
    yield chunk(i, { role: 'assistant', content: '' }, null);
    if (o.echoText) yield chunk(i, { content: o.echoText }, null);
  }
  let completion = 0;
  for await (const { index, value: d } of mergeTagged(plans.map((p) => regroupDeltas(runGeneration(ctx, p, signal), ctx.streamInterval)))) {
    completion += d.tokens.length;
    if (!d.text && !d.tokens.length && !d.finish) continue;
    const lp = o.logprobs && d.tokens.length ? { content: chatLogprobs(o.names, d.tokens, o.topLogprobs) } : null;
    yield chunk(index, d.text || d.tokens.length ? { content: d.text } : {}, lp, d.finish);
  }
  const promptTokens = plans[0].promptIds.length;
  if (o.includeUsage) yield { ...o.head, object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: promptTokens, total_tokens: promptTokens + completion, completion_tokens: completion } };
}
