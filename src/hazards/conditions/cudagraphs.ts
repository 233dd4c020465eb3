/**
 * FULL CUDA-graph capture of decode/verify batches. vLLM's default cudagraph_mode is
 * FULL_AND_PIECEWISE; --enforce-eager or compilation_config.cudagraph_mode NONE / PIECEWISE avoid
 * full capture (research/interaction-bugs.md B7).
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { arg, asBool, asString, subArg } from './args.js';

export function fullCudaGraphs(): Condition {
  return {
    name: 'full-cuda-graphs',
    description:
      'decode batches are captured in FULL CUDA graphs (no --enforce-eager, cudagraph_mode not NONE/PIECEWISE)',
    check(d: Deployment): ConditionResult {
      const eager = arg(d, 'enforce_eager');
      if (eager && asBool(eager.value) === true)
        return { status: 'not-met', detail: '--enforce-eager: no CUDA graphs', at: eager.at };
      const mode = subArg(d, 'compilation_config', 'cudagraph_mode');
      const m = asString(mode?.value)?.toUpperCase();
      if (m === 'NONE' || m === 'PIECEWISE')
        return {
          status: 'not-met',
          detail: `compilation_config.cudagraph_mode=${m}: no FULL capture`,
          at: mode?.at,
        };
      if (m) return { status: 'met', detail: `compilation_config.cudagraph_mode=${m}`, at: mode?.at };
      return { status: 'met', detail: 'cudagraph_mode is unset: vLLM defaults to FULL_AND_PIECEWISE' };
    },
  };
}

/** Any CUDA-graph capture (FULL or PIECEWISE): not --enforce-eager and cudagraph_mode is not NONE. */
export function cudaGraphsOn(): Condition {
  return {
    name: 'cuda-graphs',
    description:
      'CUDA graphs are captured (no --enforce-eager, compilation_config.cudagraph_mode is not NONE)',
    check(d: Deployment): ConditionResult {
      const eager = arg(d, 'enforce_eager');
      if (eager && asBool(eager.value) === true)
        return { status: 'not-met', detail: '--enforce-eager: no CUDA graphs', at: eager.at };
      const mode = subArg(d, 'compilation_config', 'cudagraph_mode');
      const m = asString(mode?.value)?.toUpperCase();
      if (m === 'NONE')
        return { status: 'not-met', detail: 'compilation_config.cudagraph_mode=NONE', at: mode?.at };
      return m
        ? { status: 'met', detail: `compilation_config.cudagraph_mode=${m}`, at: mode?.at }
        : { status: 'met', detail: 'CUDA graphs are on by default (cudagraph_mode FULL_AND_PIECEWISE)' };
    },
  };
}
