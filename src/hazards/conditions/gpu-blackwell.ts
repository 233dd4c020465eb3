/**
 * "On Blackwell" when the public record saw a defect only on the datacenter parts: the SM100 family
 * (B200/GB200 10.0, B300/GB300 10.3) is met; SM12x (RTX PRO 6000, RTX 50xx, GB10) is also Blackwell
 * but takes other kernel paths (no trtllm-gen), so whether it is affected is unknown rather than
 * assumed either way; every other architecture is not met.
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { gpuLabel, inFamily, NO_GPU } from './gpu.js';

export function blackwellGpu(opts: { reportedOn: string }): Condition {
  return {
    name: 'gpu-blackwell',
    role: 'fact',
    description: `the GPU is a Blackwell datacenter part (SM100 family; reported on ${opts.reportedOn})`,
    check(d: Deployment): ConditionResult {
      const g = d.gpu;
      if (!g) return NO_GPU;
      const label = gpuLabel(d) as string;
      if (inFamily(g.value.sm, 100))
        return {
          status: 'met',
          detail: `${label} is in the SM100 family (reported on ${opts.reportedOn})`,
          at: g.at,
        };
      if (inFamily(g.value.sm, 120))
        return {
          status: 'unknown',
          detail: `${label} is Blackwell but SM12x; the record names only ${opts.reportedOn}, and whether SM12x takes the same path is not established`,
          at: g.at,
        };
      return { status: 'not-met', detail: `${label} is not a Blackwell GPU`, at: g.at };
    },
  };
}
