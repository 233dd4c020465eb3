/**
 * From a validated request to engine work and back: the prompt checks vLLM makes (vocabulary,
 * max_model_len), the SequenceRequest (sampling defaults, stop rules), and the run itself as an
 * async sequence of text deltas — shared by completions and chat, streamed or not. A client that
 * goes away (the request's AbortSignal) or stops reading aborts its sequence in the engine.
 */
import { randomInt } from 'node:crypto';
import { penaltyProblem } from '../engine/sampling-penalties.js';
import type { EmittedToken, Finish, PromptLogprob, SequenceRequest } from '../engine/sequence.js';
import type { ServerContext } from './context.js';
import { ApiError, badRequest } from './errors.js';
import { OutputText } from './output-text.js';
import type { samplingFields } from './request-fields.js';
import type { z } from 'zod';

type SamplingFields = { [K in keyof typeof samplingFields]?: z.infer<(typeof samplingFields)[K]> };

export interface GenerationPlan {
  promptIds: number[];
  request: SequenceRequest;
  stop: string[];
  includeStop: boolean;
  /** echo with max_tokens 0: score the prompt, generate nothing (one token is generated and dropped). */
  scoreOnly: boolean;
}

export interface Delta {
  text: string;
  tokens: EmittedToken[];
  promptLogprobs?: PromptLogprob[];
  finish?: { reason: 'stop' | 'length' | 'abort'; stopReason: string | number | null };
}

export function checkTokenIds(ctx: ServerContext, ids: readonly number[], param: string): void {
  const V = ctx.tokenizer.vocabSize;
  for (const id of ids) if (id < 0 || id >= V) throw badRequest(`token id ${id} is out of vocabulary (0..${V - 1})`, param);
}

/** vLLM's context-length rule (400): prompt + max_tokens must fit in max_model_len. */
export function checkContextLength(ctx: ServerContext, promptLen: number, maxTokens: number): void {
  if (promptLen === 0) throw badRequest('the prompt is empty', 'prompt');
  if (promptLen >= ctx.maxModelLen)
    throw badRequest(`This model's maximum context length is ${ctx.maxModelLen} tokens. However, your request has ${promptLen} input tokens. Please reduce the length of the input.`, 'prompt');
  if (promptLen + maxTokens > ctx.maxModelLen)
    throw badRequest(
      `'max_tokens' or 'max_completion_tokens' is too large: ${maxTokens}. This model's maximum context length is ${ctx.maxModelLen} tokens and your request has ${promptLen} input tokens (${maxTokens} > ${ctx.maxModelLen} - ${promptLen}).`,
      'max_tokens',
    );
}

export function checkLogprobs(ctx: ServerContext, n: number | null | undefined, param: string): void {
  if (n === null || n === undefined) return;
  const max = ctx.limits.maxLogprobs;
  if (n === -1 ? max !== -1 : max !== -1 && n > max) throw badRequest(`${param}=${n} exceeds the server's max_logprobs (${max})`, param);
}

export function planGeneration(
  ctx: ServerContext,
  promptIds: number[],
  body: SamplingFields,
  o: { maxTokens: number; logprobs: number | null; scoreOnly: boolean; promptLogprobs: number | null },
): GenerationPlan {
  if (body.model !== undefined && body.model !== null && body.model !== ctx.modelId) throw new ApiError(404, `The model \`${body.model}\` does not exist.`, 'model');
  checkLogprobs(ctx, o.logprobs, 'logprobs');
  checkLogprobs(ctx, o.promptLogprobs, 'prompt_logprobs');
  const maxTokens = o.scoreOnly ? 1 : o.maxTokens;
  checkContextLength(ctx, promptIds.length, maxTokens);
  checkTokenIds(ctx, promptIds, 'prompt');
  checkTokenIds(ctx, body.stop_token_ids ?? [], 'stop_token_ids');
  const penalties = { repetition: body.repetition_penalty ?? 1, frequency: body.frequency_penalty ?? 0, presence: body.presence_penalty ?? 0 };
  const penaltyError = penaltyProblem(penalties);
  if (penaltyError) throw badRequest(penaltyError, penaltyError.split(' ')[0]);
  const temperature = body.temperature ?? ctx.defaults.temperature;
  const topK = body.top_k ?? ctx.defaults.topK;
  const stop = body.stop === null || body.stop === undefined ? [] : typeof body.stop === 'string' ? [body.stop] : body.stop;
  const request: SequenceRequest = {
      promptIds,
      maxTokens,
      minTokens: Math.min(body.min_tokens ?? 0, maxTokens),
      ignoreEos: body.ignore_eos ?? false,
      stopTokenIds: body.stop_token_ids ?? [],
      sampling: { temperature, topK: topK === -1 ? 0 : topK, topP: body.top_p ?? ctx.defaults.topP },
      seed: body.seed ?? randomInt(2 ** 31),
      logprobs: o.logprobs ?? 0,
      promptLogprobs: o.promptLogprobs,
      penalties,
      logprobsMode: ctx.logprobsMode,
  };
  const refusal = ctx.runner?.refusal(request);
  if (refusal) throw badRequest(refusal.message, refusal.param);
  return {
    promptIds,
    request,
    stop: stop.filter((s) => s.length > 0),
    includeStop: body.include_stop_str_in_output ?? false,
    scoreOnly: o.scoreOnly,
  };
}

/**
 * `n` choices of one prompt: n independent sequences, as vLLM's parallel sampling makes n child
 * requests (vllm/v1/engine/parallel_sampling.py: child i gets seed + i when a seed is given). With
 * prefix caching they share the prompt's full blocks. Choice index = prompt index · n + i.
 */
export function choicePlans(ctx: ServerContext, plans: GenerationPlan[], n: number | null | undefined): GenerationPlan[] {
  const k = n ?? 1;
  if (plans.length * k > ctx.limits.maxPrompts) throw badRequest(`at most ${ctx.limits.maxPrompts} choices per request (prompts × n), got ${plans.length * k}`, 'n');
  return plans.flatMap((p) => Array.from({ length: k }, (_, i) => (i === 0 ? p : { ...p, request: { ...p.request, seed: p.request.seed + i } })));
}

export function ensureReady(ctx: ServerContext): void {
  if (!ctx.runner || ctx.state !== 'ready') throw new ApiError(503, ctx.state === 'draining' ? 'the server is shutting down' : 'the model is still loading');
}

/** A whole run: the concatenated text and tokens, the prompt logprobs, how it finished. */
export interface Collected {
  text: string;
  tokens: EmittedToken[];
  promptLogprobs: PromptLogprob[] | null;
  finish: NonNullable<Delta['finish']>;
}

export async function collectGeneration(ctx: ServerContext, plan: GenerationPlan, signal?: AbortSignal): Promise<Collected> {
  const c: Collected = { text: '', tokens: [], promptLogprobs: null, finish: { reason: 'abort', stopReason: null } };
  for await (const d of runGeneration(ctx, plan, signal)) {
    c.text += d.text;
    c.tokens.push(...d.tokens);
    if (d.promptLogprobs) c.promptLogprobs = d.promptLogprobs;
    if (d.finish) c.finish = d.finish;
  }
  return c;
}

/** Runs one prompt; yields deltas, the last one with `finish`. Throws ApiError(500) when the engine fails. */
export async function* runGeneration(ctx: ServerContext, plan: GenerationPlan, signal?: AbortSignal): AsyncGenerator<Delta> {
  ensureReady(ctx);
  const stream = ctx.runner!.submit(plan.request);
  const onAbort = () => stream.abort();
  signal?.addEventListener('abort', onAbort);
  if (signal?.aborted) stream.abort();
  const out = new OutputText(ctx.tokenizer, plan.stop, plan.includeStop);
  const finished = (f: Finish, text: string, tokens: EmittedToken[]): Delta => {
    if (f.reason === 'error') throw new ApiError(500, `the engine failed: ${f.error ?? 'unknown error'}`);
    return { text: text + out.flush(), tokens, finish: { reason: f.reason, stopReason: f.stopTokenId ?? null } };
  };
  try {
    for await (const ev of stream) {
      if (ev.kind === 'prompt_logprobs') yield { text: '', tokens: [], promptLogprobs: ev.entries };
      else if (ev.kind === 'tokens' && !plan.scoreOnly) {
        const d = out.push(ev.tokens);
        if (d.stopped !== null) {
          stream.abort({ reason: 'stop', stopTokenId: null });
          yield { text: d.text, tokens: d.tokens, finish: { reason: 'stop', stopReason: d.stopped } };
          return;
        }
        // the step's last tokens and the finish go out as one delta (one SSE chunk), as vLLM sends them
        if (ev.finish) return yield finished(ev.finish, d.text, d.tokens);
        if (d.text || d.tokens.length) yield { text: d.text, tokens: d.tokens };
      } else if (ev.finish) return yield finished(ev.finish, '', []); // a finish alone, or a score-only request's
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    stream.abort(); // no-op when finished; stops the engine work when the consumer went away
  }
}
