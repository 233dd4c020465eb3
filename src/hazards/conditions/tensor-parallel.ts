/** Tensor parallelism (--tensor-parallel-size / -tp); unset means 1. */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { arg, asInt, show } from './args.js';

export function tensorParallel(min: number): Condition {
  return {
    name: 'tensor-parallel',
    description: `tensor parallelism spans at least ${min} GPUs (--tensor-parallel-size ≥ ${min})`,
    check(d: Deployment): ConditionResult {
      const a = arg(d, 'tensor_parallel_size');
      if (!a) return { status: 'not-met', detail: '--tensor-parallel-size is unset (1)' };
      const n = asInt(a.value);
      if (n === undefined)
        return {
          status: 'unknown',
          detail: `--tensor-parallel-size ${show(a.value)} is not a number`,
          at: a.at,
        };
      return n >= min
        ? { status: 'met', detail: `--tensor-parallel-size ${n}`, at: a.at }
        : { status: 'not-met', detail: `--tensor-parallel-size ${n} < ${min}`, at: a.at };
    },
  };
}
