/**
 * Async scheduling (`--async-scheduling` / `--no-async-scheduling`). The public record calls it the
 * default in 2026 vLLM (vllm#46669) but the release that flipped the default is not established, so an
 * absent flag is "unknown" rather than assumed.
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { arg, asBool, show } from './args.js';

export function asyncScheduling(expected: 'on' | 'off'): Condition {
  return {
    name: expected === 'on' ? 'async-scheduling' : 'no-async-scheduling',
    description:
      expected === 'on' ? 'async scheduling is on' : 'async scheduling is off (--no-async-scheduling)',
    check(d: Deployment): ConditionResult {
      const a = arg(d, 'async_scheduling');
      const on = asBool(a?.value);
      if (on === undefined)
        return {
          status: 'unknown',
          detail: a
            ? `--async-scheduling ${show(a.value)} is not a boolean`
            : 'async scheduling is not set: it is the default in 2026 vLLM, off by default in older releases (which release flipped it is not established)',
          at: a?.at,
        };
      const spelled = on ? '--async-scheduling' : '--no-async-scheduling';
      return (on ? 'on' : 'off') === expected
        ? { status: 'met', detail: `${spelled} is set`, at: a?.at }
        : { status: 'not-met', detail: `${spelled} is set`, at: a?.at };
    },
  };
}
