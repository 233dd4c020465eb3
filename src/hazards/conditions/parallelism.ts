/** Pipeline parallelism (--pipeline-parallel-size / -pp ≥ 2) and the V2 model runner switch. */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { arg, asBool, asInt, env, show } from './args.js';

export function pipelineParallel(): Condition {
  return {
    name: 'pipeline-parallel',
    description: 'pipeline parallelism is on (--pipeline-parallel-size ≥ 2)',
    check(d: Deployment): ConditionResult {
      const a = arg(d, 'pipeline_parallel_size');
      const n = asInt(a?.value);
      if (!a) return { status: 'not-met', detail: '--pipeline-parallel-size is unset (1)' };
      if (n === undefined)
        return {
          status: 'unknown',
          detail: `--pipeline-parallel-size ${show(a.value)} is not a number`,
          at: a.at,
        };
      return n >= 2
        ? { status: 'met', detail: `--pipeline-parallel-size ${n}`, at: a.at }
        : { status: 'not-met', detail: `--pipeline-parallel-size ${n}`, at: a.at };
    },
  };
}

/** Which model runner VLLM_USE_V2_MODEL_RUNNER selects: true (V2), false (V1), or undefined when unset or unreadable. */
function usesV2Runner(d: Deployment): { v2?: boolean; at?: ConditionResult['at']; spelled: string } {
  const e = env(d, 'VLLM_USE_V2_MODEL_RUNNER');
  return { v2: asBool(e?.value), at: e?.at, spelled: `VLLM_USE_V2_MODEL_RUNNER=${e?.value}` };
}

const RUNNER_UNKNOWN =
  'VLLM_USE_V2_MODEL_RUNNER is not set; which runner a given release uses by default is not established';

function modelRunner(want: 'v1' | 'v2'): Condition {
  return {
    name: `${want}-model-runner`,
    description:
      want === 'v2'
        ? 'the V2 model runner is in use (VLLM_USE_V2_MODEL_RUNNER=1)'
        : 'the V1 model runner is in use (VLLM_USE_V2_MODEL_RUNNER is not 1)',
    check(d: Deployment): ConditionResult {
      const r = usesV2Runner(d);
      if (r.v2 === undefined) return { status: 'unknown', detail: RUNNER_UNKNOWN, at: r.at };
      return { status: r.v2 === (want === 'v2') ? 'met' : 'not-met', detail: r.spelled, at: r.at };
    },
  };
}

export const v2ModelRunner = (): Condition => modelRunner('v2');
export const v1ModelRunner = (): Condition => modelRunner('v1');
