/**
 * What `--golden FILE` does to the other probe options. A golden fixes the prompts (their token
 * ids, each one's max_tokens, the suite and seed that made them) and the logprobs depth it
 * recorded, so an option that would change those cannot take effect: giving one is refused, with
 * the golden's own value, rather than silently ignored. Two options describe the target, not
 * the prompts, and may differ from the golden's: --page-size (the target's KV page size) and
 * --window (the model's window); when given they override the golden's value and a note says
 * so; when not given the golden's value is used. --requests sends the first N exchanges.
 */
import { UserError } from '../core/errors.js';
import type { Recording } from './recording.js';

/** Options the user wrote on the command line (undefined: not given), as given. */
export interface GivenOptions {
  suite?: string;
  seed?: number;
  maxTokens?: number;
  logprobs?: number;
  prompts?: string;
  promptText?: string;
  pageSize?: number;
  window?: number;
  requests?: number;
}

export interface GoldenSettings {
  window?: number;
  pageSize: number;
  requests: number;
  /** Overrides, said in the report's notes and on stderr. */
  notes: string[];
}

const DEFAULT_PAGE_SIZE = 16;

function maxTokensRange(g: Recording): string {
  const all = g.exchanges.map((e) => e.maxTokens);
  if (all.length === 0) return 'none recorded';
  const lo = Math.min(...all);
  const hi = Math.max(...all);
  return lo === hi ? String(lo) : `${lo}–${hi}`;
}

/** Refuses options the golden fixes; returns what the golden run uses. */
export function reconcileGoldenOptions(golden: Recording, path: string, given: GivenOptions): GoldenSettings {
  const fixed: string[] = [];
  if (given.suite !== undefined && given.suite !== golden.suite) fixed.push(`--suite ${given.suite} (the golden's suite is ${golden.suite})`);
  if (given.seed !== undefined && given.seed !== golden.seed) fixed.push(`--seed ${given.seed} (the golden's seed is ${golden.seed})`);
  if (given.logprobs !== undefined && given.logprobs !== golden.logprobs) fixed.push(`--logprobs ${given.logprobs} (the golden recorded top-${golden.logprobs})`);
  if (given.maxTokens !== undefined) fixed.push(`--max-tokens ${given.maxTokens} (each exchange keeps its recorded max_tokens: ${maxTokensRange(golden)})`);
  if (given.prompts !== undefined) fixed.push(`--prompts ${given.prompts} (the golden's prompts are its recorded token ids)`);
  if (given.promptText !== undefined) fixed.push(`--prompt-text ${given.promptText} (the golden's prompts are its recorded token ids)`);
  if (fixed.length)
    throw new UserError(`--golden ${path} fixes the prompts, so ${fixed.length === 1 ? 'this option' : 'these options'} cannot take effect: ${fixed.join('; ')}`, {
      code: 'E_USAGE',
      hint: 'drop them to replay the golden as recorded, or record a new golden with them (--save-golden FILE against the reference)',
    });
  const notes: string[] = [];
  let pageSize = golden.pageSize ?? DEFAULT_PAGE_SIZE;
  if (given.pageSize !== undefined && given.pageSize !== pageSize) {
    notes.push(`--page-size ${given.pageSize} overrides the golden's ${golden.pageSize ?? 'unrecorded page size'} (positions are related to the target's KV pages)`);
    pageSize = given.pageSize;
  }
  let window = golden.window;
  if (given.window !== undefined && given.window !== window) {
    notes.push(`--window ${given.window} overrides the golden's ${window ?? 'unrecorded window'}`);
    window = given.window;
  }
  const recorded = golden.exchanges.length;
  const requests = given.requests !== undefined ? Math.min(given.requests, recorded) : recorded;
  if (given.requests !== undefined && given.requests < recorded) notes.push(`--requests ${given.requests}: the first ${given.requests} of the golden's ${recorded} exchanges`);
  return { window, pageSize, requests, notes };
}
