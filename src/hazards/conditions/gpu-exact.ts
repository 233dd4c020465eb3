/**
 * "On this GPU" when a report saw a defect on one part and a control passed on a newer one: the
 * reported compute capability is met, others of the same major version are unknown (neither seen
 * failing nor passing), the rest not met.
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { gpuLabel, NO_GPU } from './gpu.js';

export function gpuExactly(opts: { name: string; sm: number; label: string; cleanOn: string }): Condition {
  return {
    name: opts.name,
    role: 'fact',
    description: `the GPU is ${opts.label} (clean on ${opts.cleanOn} in the report)`,
    check(d: Deployment): ConditionResult {
      const g = d.gpu;
      if (!g) return NO_GPU;
      const label = gpuLabel(d) as string;
      if (g.value.sm === opts.sm) return { status: 'met', detail: `${label}: the reported GPU`, at: g.at };
      if (Math.floor(g.value.sm / 10) === Math.floor(opts.sm / 10))
        return {
          status: 'unknown',
          detail: `${label}: same generation as the reported ${opts.label}, not in the record either way`,
          at: g.at,
        };
      return { status: 'not-met', detail: `${label} is not ${opts.label}`, at: g.at };
    },
  };
}
