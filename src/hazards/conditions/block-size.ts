/**
 * KV-cache pages larger than 128 tokens. An explicit --block-size says it; hybrid Mamba/GDN models
 * get an attention block size aligned to the recurrent-state page (public reports show 528, 544 and
 * 1600 tokens), which a launch file does not show (research/interaction-bugs.md A5).
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { arg, asInt, show } from './args.js';

export function largeKvPages(): Condition {
  return {
    name: 'kv-page-over-128',
    description:
      'KV-cache pages hold more than 128 tokens (--block-size > 128, or a hybrid Mamba/GDN model’s aligned block size)',
    check(d: Deployment): ConditionResult {
      const a = arg(d, 'block_size');
      const n = asInt(a?.value);
      if (a && n === undefined)
        return { status: 'unknown', detail: `--block-size ${show(a.value)} is not a number`, at: a.at };
      if (n !== undefined)
        return n > 128
          ? { status: 'met', detail: `--block-size ${n} > 128`, at: a?.at }
          : { status: 'not-met', detail: `--block-size ${n} ≤ 128`, at: a?.at };
      const f = d.modelFacts;
      if (!f)
        return {
          status: 'unknown',
          detail: 'no --block-size and no model config: a hybrid model would get large aligned pages',
        };
      if (f.layers.includes('linear'))
        return {
          status: 'unknown',
          detail:
            'hybrid Mamba/GDN model without --block-size: vLLM aligns the attention block to the state page (often > 128 tokens)',
          at: d.model?.at,
        };
      return {
        status: 'not-met',
        detail: 'no --block-size: vLLM picks a supported size ≤ 128 for attention-only models',
      };
    },
  };
}
