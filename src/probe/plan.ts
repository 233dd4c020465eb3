/**
 * From suite settings to concrete prompts: which prompts a probe sends (planPrompts, pure) and
 * their token ids (promptTokensFor: text tokenized on the server, or held-out prose cut to length).
 */
import { UserError } from '../core/errors.js';
import { createRng } from '../core/rng.js';
import type { CallResult } from './client.js';
import { promptOfLength } from './prompts.js';
import type { Recording } from './recording.js';
import type { ServerApi } from './server-api.js';
import { shortPlan, windowCrossingPlan, type FilePrompt, type SuiteName } from './suites.js';

export interface PromptSpec {
  id: string;
  maxTokens: number;
  /** Token ids given (golden, file); otherwise built from `text` or `length`. */
  tokens?: number[];
  text?: string;
  length?: number;
}

export interface PlanInput {
  suite: SuiteName;
  filePrompts?: FilePrompt[];
  golden?: Recording;
  window?: number;
  pageSize: number;
  requests: number;
  maxTokens: number;
  seed: number;
}

export function planPrompts(input: PlanInput, maxModelLen: number | undefined): PromptSpec[] {
  if (input.golden)
    return input.golden.exchanges.map((e) => ({ id: e.id, maxTokens: e.maxTokens, tokens: e.promptTokens }));
  if (input.suite === 'file') {
    if (!input.filePrompts)
      throw new UserError('the file suite needs a prompt file', { hint: 'pass --prompts FILE.jsonl' });
    return input.filePrompts
      .slice(0, input.requests)
      .map((p) => ({ id: p.id, maxTokens: p.maxTokens, tokens: p.tokens, text: p.text }));
  }
  if (input.window === undefined)
    throw new UserError(`the ${input.suite} suite needs the model's sliding window`, {
      hint: 'pass --window N or --model-config PATH',
    });
  const shape = {
    window: input.window,
    pageSize: input.pageSize,
    requests: input.requests,
    maxTokens: input.maxTokens,
    seed: input.seed,
    maxModelLen,
  };
  const plans = input.suite === 'short' ? shortPlan(shape) : windowCrossingPlan(shape);
  return plans.map((p) => ({ id: p.id, maxTokens: p.maxTokens, length: p.length }));
}

/** The token ids of a planned prompt (each prompt's text offset is seeded by its index). */
export async function promptTokensFor(
  spec: PromptSpec,
  index: number,
  seed: number,
  corpus: string,
  tokenizer: ServerApi,
  signal?: AbortSignal,
): Promise<CallResult<number[]>> {
  if (spec.tokens) return { ok: true, value: spec.tokens, attempts: [] };
  if (spec.text !== undefined) return tokenizer.tokenize(spec.text, signal);
  const rng = createRng((seed * 1000003 + index * 7919) >>> 0);
  return promptOfLength(corpus, spec.length!, rng, (t) => tokenizer.tokenize(t, signal));
}
