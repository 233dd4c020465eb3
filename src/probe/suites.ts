/**
 * What to ask: the probe's prompt suites.
 *
 *  window-crossing (default): prompts of exact token lengths from window/2 to 8 × window, their
 *    lengths swept across every residue mod the page size (the defect appears only at some
 *    alignments), and generation long enough that every request ends past the window.
 *  short: every token — prompt and generation — stays within the window: the control. A defect
 *    that needs seq_len > window must leave it clean.
 *  file: JSONL prompts of the user's own.
 *
 * Suites are plans of lengths (pure, tested exactly); prompts.ts turns them into token ids by
 * cutting held-out prose and tokenizing it on the server. The order is shuffled by the seed so a
 * sequential test that stops early has already seen a spread of lengths and alignments
 * (window-crossing: prompts shorter than the window first, for the margin calibration).
 */
import { UserError } from '../core/errors.js';
import { createRng } from '../core/rng.js';

export type SuiteName = 'window-crossing' | 'short' | 'file';
export const SUITE_NAMES: readonly SuiteName[] = ['window-crossing', 'short', 'file'];

export interface LengthPlan {
  id: string;
  /** Exact prompt length in tokens (BOS included when the tokenizer adds one). */
  length: number;
  maxTokens: number;
}

export interface SuiteShape {
  window: number;
  pageSize: number;
  requests: number;
  /** Generation length; window-crossing lengthens it where a prompt is too short to cross. */
  maxTokens: number;
  seed: number;
  maxModelLen?: number;
}

/** Tokens generated past the window, at least, by every window-crossing request. */
export const TOKENS_PAST_WINDOW = 16;

function shuffle<T>(items: T[], seed: number): T[] {
  const rng = createRng(seed);
  for (let i = items.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

/** n lengths spread geometrically over [lo, hi], each moved to residue (i mod page) within its page. */
function sweep(lo: number, hi: number, n: number, page: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const base = n === 1 ? lo : Math.round(lo * Math.pow(hi / lo, i / (n - 1)));
    let len = base - (base % page) + (i % page);
    while (len < lo) len += page;
    while (len > hi) len -= page;
    out.push(Math.max(lo, len));
  }
  return out;
}

function checkShape(s: SuiteShape): void {
  if (!Number.isInteger(s.window) || s.window < 8)
    throw new UserError(`window ${s.window} is too small for a suite`, {
      hint: "pass the model's sliding window with --window N (N ≥ 8) or --model-config",
    });
  if (!Number.isInteger(s.pageSize) || s.pageSize < 1)
    throw new UserError(`page size ${s.pageSize} must be a positive integer`);
  if (!Number.isInteger(s.requests) || s.requests < 1)
    throw new UserError(`--requests ${s.requests} must be a positive integer`);
  if (!Number.isInteger(s.maxTokens) || s.maxTokens < 1)
    throw new UserError(`--max-tokens ${s.maxTokens} must be a positive integer`);
}

export function windowCrossingPlan(s: SuiteShape): LengthPlan[] {
  checkShape(s);
  const lo = Math.ceil(s.window / 2);
  let hi = 8 * s.window;
  const need = (len: number) =>
    len <= s.window ? Math.max(s.maxTokens, s.window - len + TOKENS_PAST_WINDOW) : s.maxTokens;
  if (s.maxModelLen !== undefined) {
    // scoring sends prompt + continuation and asks for one more token: leave room for it
    const limit = s.maxModelLen - 1;
    if (lo + need(lo) > limit)
      throw new UserError(
        `the server's max_model_len ${s.maxModelLen} is too short for window-crossing prompts of window ${s.window}`,
        {
          hint: 'use --suite short, a smaller --max-tokens, or check --window',
        },
      );
    while (hi > lo && hi + need(hi) > limit) hi--;
  }
  const plans = sweep(lo, hi, s.requests, s.pageSize).map((length, i) => ({
    id: `wc-${i}`,
    length,
    maxTokens: need(length),
  }));
  // prompts shorter than the window first: their first steps measure the pair's benign noise
  // where a window-dependent defect cannot act (oracle/margin.ts RunningMargin)
  const inside = plans.filter((p) => p.length < s.window);
  const outside = plans.filter((p) => p.length >= s.window);
  return [...shuffle(inside, s.seed), ...shuffle(outside, s.seed + 1)];
}

export function shortPlan(s: SuiteShape): LengthPlan[] {
  checkShape(s);
  const lo = Math.max(4, Math.floor(s.window / 8));
  const hi = Math.floor(s.window / 2);
  const plans = sweep(lo, hi, s.requests, s.pageSize).map((length, i) => ({
    id: `short-${i}`,
    length,
    // the last generated token sits at position length + maxTokens − 1 ≤ window − 1
    maxTokens: Math.max(1, Math.min(s.maxTokens, s.window - length)),
  }));
  return shuffle(plans, s.seed);
}

export interface FilePrompt {
  id: string;
  text?: string;
  tokens?: number[];
  maxTokens: number;
}

/** JSONL: one object per line, {"prompt": "text" | [ids], "max_tokens"?: n, "id"?: "name"}. */
export function parsePromptFile(content: string, file: string, defaultMaxTokens: number): FilePrompt[] {
  const out: FilePrompt[] = [];
  const lines = content.split('\n');
  lines.forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '') return;
    const at = (column: number) => ({ file, line: i + 1, column });
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      const m = /position (\d+)/.exec((e as Error).message);
      throw new UserError(`not valid JSON: ${(e as Error).message}`, {
        at: at(m ? Number(m[1]) + 1 : 1),
        hint: 'each line must be one JSON object like {"prompt": "…"}',
      });
    }
    const obj = value as { prompt?: unknown; max_tokens?: unknown; id?: unknown };
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new UserError('each line must be a JSON object', { at: at(1) });
    const column = (field: string) => Math.max(1, line.indexOf(`"${field}"`) + 1);
    const prompt = obj.prompt;
    const isIds =
      Array.isArray(prompt) && prompt.length > 0 && prompt.every((t) => Number.isInteger(t) && t >= 0);
    if (!(typeof prompt === 'string' && prompt.length > 0) && !isIds)
      throw new UserError('"prompt" must be a non-empty string or a list of token ids', {
        at: at(column('prompt')),
      });
    if (obj.max_tokens !== undefined && !(Number.isInteger(obj.max_tokens) && (obj.max_tokens as number) > 0))
      throw new UserError('"max_tokens" must be a positive integer', { at: at(column('max_tokens')) });
    out.push({
      id: typeof obj.id === 'string' ? obj.id : `line-${i + 1}`,
      ...(typeof prompt === 'string' ? { text: prompt } : { tokens: prompt as number[] }),
      maxTokens: (obj.max_tokens as number | undefined) ?? defaultMaxTokens,
    });
  });
  if (out.length === 0)
    throw new UserError(`${file} has no prompts`, { hint: 'one JSON object per line: {"prompt": "…"}' });
  return out;
}
