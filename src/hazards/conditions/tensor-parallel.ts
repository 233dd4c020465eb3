/** Parallel sizes (--tensor-parallel-size / -tp, --decode-context-parallel-size / -dcp …); unset means 1. */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { arg, asInt, show } from './args.js';

/** `dest` is at least `min` (an unset size is 1). */
export function sizeAtLeast(opts: { name: string; dest: string; min: number; what: string }): Condition {
  const flag = `--${opts.dest.replace(/_/g, '-')}`;
  return {
    name: opts.name,
    description: `${opts.what} (${flag} ≥ ${opts.min})`,
    check(d: Deployment): ConditionResult {
      const a = arg(d, opts.dest);
      if (!a) return { status: 'not-met', detail: `${flag} is unset (1)` };
      const n = asInt(a.value);
      if (n === undefined)
        return { status: 'unknown', detail: `${flag} ${show(a.value)} is not a number`, at: a.at };
      return n >= opts.min
        ? { status: 'met', detail: `${flag} ${n}`, at: a.at }
        : { status: 'not-met', detail: `${flag} ${n} < ${opts.min}`, at: a.at };
    },
  };
}

export const tensorParallel = (min: number): Condition =>
  sizeAtLeast({
    name: 'tensor-parallel',
    dest: 'tensor_parallel_size',
    min,
    what: `tensor parallelism spans at least ${min} GPUs`,
  });
