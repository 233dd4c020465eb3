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

export function v2ModelRunner(): Condition {
  return {
    name: 'v2-model-runner',
    description: 'the V2 model runner is in use (VLLM_USE_V2_MODEL_RUNNER=1)',
    check(d: Deployment): ConditionResult {
      const e = env(d, 'VLLM_USE_V2_MODEL_RUNNER');
      const on = asBool(e?.value);
      if (on === true) return { status: 'met', detail: `VLLM_USE_V2_MODEL_RUNNER=${e?.value}`, at: e?.at };
      if (on === false)
        return { status: 'not-met', detail: `VLLM_USE_V2_MODEL_RUNNER=${e?.value}`, at: e?.at };
      return {
        status: 'unknown',
        detail:
          'VLLM_USE_V2_MODEL_RUNNER is not set; the report set it to 1, and whether a given release uses the V2 runner by default is not established',
        at: e?.at,
      };
    },
  };
}

/** The V1 model runner: VLLM_USE_V2_MODEL_RUNNER is 0, or unknown when it is not set. */
export function v1ModelRunner(): Condition {
  return {
    name: 'v1-model-runner',
    description: 'the V1 model runner is in use (VLLM_USE_V2_MODEL_RUNNER is not 1)',
    check(d: Deployment): ConditionResult {
      const e = env(d, 'VLLM_USE_V2_MODEL_RUNNER');
      const on = asBool(e?.value);
      if (on === true)
        return {
          status: 'not-met',
          detail: `VLLM_USE_V2_MODEL_RUNNER=${e?.value}: the V2 runner`,
          at: e?.at,
        };
      if (on === false)
        return { status: 'met', detail: `VLLM_USE_V2_MODEL_RUNNER=${e?.value}: the V1 runner`, at: e?.at };
      return {
        status: 'unknown',
        detail:
          'VLLM_USE_V2_MODEL_RUNNER is not set; which runner a given release uses by default is not established',
        at: e?.at,
      };
    },
  };
}
