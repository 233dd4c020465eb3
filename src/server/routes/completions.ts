/**
 * POST /v1/completions (vLLM's CompletionRequest / CompletionResponse): prompt as text, token ids or
 * a batch of either, n choices each; greedy or sampled; logprobs, echo (echo with max_tokens 0 scores the prompt
 * only), prompt_logprobs, stop strings and ids, return_tokens_as_token_ids, return_token_ids;
 * streaming as SSE chunks of object "text_completion", usage last with stream_options.include_usage.
 */
import type { Hono } from 'hono';
import type { ServerContext } from '../context.js';
import { withoutVllmExtensions, withQuirks } from '../api-shape.js';
import { badRequest } from '../errors.js';
import { choicePlans, collectGeneration, ensureReady, planGeneration, runGeneration, type GenerationPlan } from '../generation.js';
import { newRequestId, readJson, unixNow } from '../http-body.js';
import { CompletionLogprobsBuilder, emptyCompletionLogprobs, promptLogprobsJson, TokenNames } from '../logprobs-format.js';
import { mergeTagged } from '../merge.js';
import { regroupDeltas } from '../stream-interval.js';
import { completionSchema, parseBody, type CompletionBody } from '../request-fields.js';
import { sseResponse } from '../sse.js';

interface Prompt {
  ids: number[];
  text: string;
}

function prompts(ctx: ServerContext, body: CompletionBody): Prompt[] {
  const p = body.prompt;
  const addBos = body.add_special_tokens ?? true;
  const fromText = (text: string): Prompt => ({ ids: ctx.tokenizer.encode(text, { addBos }), text });
  const fromIds = (ids: number[]): Prompt => ({ ids, text: ctx.tokenizer.decode(ids) });
  let list: Prompt[];
  if (typeof p === 'string') list = [fromText(p)];
  else if (p.length === 0) throw badRequest('prompt must not be an empty list', 'prompt');
  else if (typeof p[0] === 'number') list = [fromIds(p as number[])];
  else if (typeof p[0] === 'string') list = (p as string[]).map(fromText);
  else list = (p as number[][]).map(fromIds);
  if (list.length > ctx.limits.maxPrompts) throw badRequest(`at most ${ctx.limits.maxPrompts} prompts per request, got ${list.length}`, 'prompt');
  return list;
}

export function registerCompletions(app: Hono, ctx: ServerContext): void {
  app.post('/v1/completions', async (c) => {
    const body = withQuirks(ctx.quirks, withoutVllmExtensions(ctx.apiShape, parseBody(completionSchema, await readJson(c))));
    const echo = body.echo ?? false;
    const maxTokens = body.max_tokens ?? 16;
    if (maxTokens === 0 && !echo) throw badRequest('max_tokens must be at least 1 (0 is only meaningful with echo: score the prompt)', 'max_tokens');
    if (body.prompt_logprobs !== undefined && body.prompt_logprobs !== null && body.stream) throw badRequest('prompt_logprobs is not available when stream is enabled', 'prompt_logprobs');
    const logprobs = body.logprobs ?? null;
    const list = prompts(ctx, body);
    const perPrompt = list.map((p) =>
      planGeneration(ctx, p.ids, body, {
        maxTokens,
        logprobs,
        scoreOnly: echo && maxTokens === 0,
        // vLLM: echo with logprobs scores the prompt too (prompt_logprobs = logprobs)
        promptLogprobs: body.prompt_logprobs ?? (echo && logprobs !== null ? logprobs : null),
      }),
    );
    const plans = choicePlans(ctx, perPrompt, body.n);
    const n = plans.length / list.length;
    const promptOf = (choice: number) => list[Math.floor(choice / n)];
    ensureReady(ctx);
    const names = new TokenNames(ctx.tokenizer, body.return_tokens_as_token_ids ?? ctx.returnTokensAsTokenIds);
    const head = { id: newRequestId('cmpl'), object: 'text_completion', created: unixNow(), model: ctx.modelId };
    const signal = c.req.raw.signal;
    if (body.stream) return sseResponse(streamChunks(ctx, plans, promptOf, list, { echo, logprobs, names, head, includeUsage: body.stream_options?.include_usage ?? false }, signal));

    const results = await Promise.all(plans.map((plan) => collectGeneration(ctx, plan, signal)));
    const choices = results.map((r, i) => {
      let lp = null;
      if (logprobs !== null) {
        lp = emptyCompletionLogprobs();
        const b = new CompletionLogprobsBuilder(names);
        if (echo) b.prompt(lp, promptOf(i).ids, r.promptLogprobs ?? []);
        b.generated(lp, r.tokens);
      }
      return {
        index: i,
        text: (echo ? promptOf(i).text : '') + r.text,
        logprobs: lp,
        finish_reason: r.finish.reason,
        stop_reason: r.finish.stopReason,
        prompt_logprobs: r.promptLogprobs ? promptLogprobsJson(names, r.promptLogprobs) : null,
        ...(body.return_token_ids ? { token_ids: r.tokens.map((t) => t.id), prompt_token_ids: promptOf(i).ids } : {}),
      };
    });
    const promptTokens = list.reduce((n, p) => n + p.ids.length, 0);
    const completionTokens = results.reduce((n, r) => n + r.tokens.length, 0);
    return c.json({
      ...head,
      choices,
      usage: { prompt_tokens: promptTokens, total_tokens: promptTokens + completionTokens, completion_tokens: completionTokens, prompt_tokens_details: null },
    });
  });
}

interface StreamOptions {
  echo: boolean;
  logprobs: number | null;
  names: TokenNames;
  head: Record<string, unknown>;
  includeUsage: boolean;
}

async function* streamChunks(ctx: ServerContext, plans: GenerationPlan[], promptOf: (choice: number) => Prompt, list: Prompt[], o: StreamOptions, signal: AbortSignal): AsyncGenerator<object> {
  const builders = plans.map(() => new CompletionLogprobsBuilder(o.names));
  const echoed = plans.map(() => !o.echo);
  const completionTokens = plans.map(() => 0);
  const chunk = (index: number, text: string, logprobs: unknown, finish: { reason: string; stopReason: string | number | null } | undefined) => ({
    ...o.head,
    choices: [{ index, text, logprobs, finish_reason: finish?.reason ?? null, stop_reason: finish ? finish.stopReason : null }],
  });
  for await (const { index, value: d } of mergeTagged(plans.map((p) => regroupDeltas(runGeneration(ctx, p, signal), ctx.streamInterval)))) {
    let text = '';
    const lp = o.logprobs === null ? null : emptyCompletionLogprobs();
    if (!echoed[index]) {
      // the echoed prompt goes first; with logprobs it waits for the prompt log-probabilities
      if (o.logprobs !== null && !d.promptLogprobs) continue;
      echoed[index] = true;
      text += promptOf(index).text;
      if (lp) builders[index].prompt(lp, promptOf(index).ids, d.promptLogprobs ?? []);
    }
    text += d.text;
    if (lp) builders[index].generated(lp, d.tokens);
    completionTokens[index] += d.tokens.length;
    if (!text && !d.tokens.length && !d.finish) continue;
    yield chunk(index, text, lp, d.finish);
  }
  if (o.includeUsage) {
    const prompt = list.reduce((n, p) => n + p.ids.length, 0);
    const completion = completionTokens.reduce((a, b) => a + b, 0);
    yield { ...o.head, choices: [], usage: { prompt_tokens: prompt, total_tokens: prompt + completion, completion_tokens: completion } };
  }
}
