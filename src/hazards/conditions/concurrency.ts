/**
 * More than one request can be in a batch: --max-num-seqs is unset (vLLM's default is well above 1)
 * or larger than 1. Batch-dependent defects need it; a server never sees concurrency from the launch alone,
 * so "met" here means "possible", which is what a deployment decides.
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { arg, asInt, show } from './args.js';

export function concurrentRequests(): Condition {
  return {
    name: 'concurrent-requests',
    // Every server batches by default: this narrows, never singles out, a launch.
    role: 'bound',
    description: 'several requests can share a batch (--max-num-seqs is unset or > 1)',
    check(d: Deployment): ConditionResult {
      const a = arg(d, 'max_num_seqs');
      const n = asInt(a?.value);
      if (!a)
        return {
          status: 'met',
          detail: '--max-num-seqs is unset: vLLM batches many requests together by default',
        };
      if (n === undefined)
        return { status: 'unknown', detail: `--max-num-seqs ${show(a.value)} is not a number`, at: a.at };
      return n > 1
        ? { status: 'met', detail: `--max-num-seqs ${n} lets requests share a batch`, at: a.at }
        : { status: 'not-met', detail: `--max-num-seqs ${n}: one request at a time`, at: a.at };
    },
  };
}
