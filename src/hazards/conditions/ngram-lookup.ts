/**
 * n-gram drafting with a short minimum match (speculative_config.prompt_lookup_min below a bound):
 * vllm#40875 reports tool-call corruption at prompt_lookup_min 2 that prompt_lookup_min 8 clears.
 * An unset minimum is unknown: its default is not established in the record.
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { asInt, show, subArg } from './args.js';
import { resolveSpeculative } from './speculative.js';

export function ngramShortLookup(opts: { cleanFrom: number }): Condition {
  return {
    name: 'ngram-short-lookup',
    description: `n-gram drafting matches prompts from fewer than ${opts.cleanFrom} tokens (speculative_config.prompt_lookup_min < ${opts.cleanFrom})`,
    check(d: Deployment): ConditionResult {
      const s = resolveSpeculative(d);
      if (!s) return { status: 'not-met', detail: 'no speculative decoding configured' };
      if (s.method !== 'ngram')
        return s.method
          ? { status: 'not-met', detail: `method ${s.method}, not n-gram`, at: s.at }
          : { status: 'unknown', detail: `${s.spelled} names no method`, at: s.at };
      const min = subArg(d, 'speculative_config', 'prompt_lookup_min');
      const n = asInt(min?.value);
      if (!min)
        return {
          status: 'unknown',
          detail: 'prompt_lookup_min is not set; its default is not established here (set it)',
          at: s.at,
        };
      if (n === undefined)
        return {
          status: 'unknown',
          detail: `prompt_lookup_min ${show(min.value)} is not a number`,
          at: min.at,
        };
      return n < opts.cleanFrom
        ? { status: 'met', detail: `prompt_lookup_min ${n} < ${opts.cleanFrom}`, at: min.at }
        : { status: 'not-met', detail: `prompt_lookup_min ${n} ≥ ${opts.cleanFrom}`, at: min.at };
    },
  };
}
