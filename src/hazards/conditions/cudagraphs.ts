/**
 * CUDA-graph capture of decode/verify batches. vLLM's default cudagraph_mode is
 * FULL_AND_PIECEWISE; --enforce-eager captures nothing, compilation_config.cudagraph_mode NONE
 * captures nothing and PIECEWISE captures no FULL graphs (research/interaction-bugs.md B7).
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { arg, asBool, asString, subArg } from './args.js';

/** The not-met answer when --enforce-eager is set (no graphs at all), else undefined. */
export function enforcedEager(d: Deployment): ConditionResult | undefined {
  const eager = arg(d, 'enforce_eager');
  return eager && asBool(eager.value) === true
    ? { status: 'not-met', detail: '--enforce-eager: no CUDA graphs', at: eager.at }
    : undefined;
}

function graphMode(d: Deployment): { mode?: string; at?: ConditionResult['at'] } {
  const mode = subArg(d, 'compilation_config', 'cudagraph_mode');
  return { mode: asString(mode?.value)?.toUpperCase(), at: mode?.at };
}

function capture(opts: { name: string; description: string; without: string[]; kind: string }): Condition {
  return {
    name: opts.name,
    description: opts.description,
    check(d: Deployment): ConditionResult {
      const eager = enforcedEager(d);
      if (eager) return eager;
      const { mode, at } = graphMode(d);
      if (mode && opts.without.includes(mode))
        return {
          status: 'not-met',
          detail: `compilation_config.cudagraph_mode=${mode}: no ${opts.kind} capture`,
          at,
        };
      if (mode) return { status: 'met', detail: `compilation_config.cudagraph_mode=${mode}`, at };
      return {
        status: 'met',
        detail: 'cudagraph_mode is unset: vLLM defaults to FULL_AND_PIECEWISE',
        byDefault: true,
      };
    },
  };
}

export const fullCudaGraphs = (): Condition =>
  capture({
    name: 'full-cuda-graphs',
    description:
      'decode batches are captured in FULL CUDA graphs (no --enforce-eager, cudagraph_mode not NONE/PIECEWISE)',
    without: ['NONE', 'PIECEWISE'],
    kind: 'FULL',
  });

/** Any CUDA-graph capture (FULL or PIECEWISE). */
export const cudaGraphsOn = (): Condition =>
  capture({
    name: 'cuda-graphs',
    description:
      'CUDA graphs are captured (no --enforce-eager, compilation_config.cudagraph_mode is not NONE)',
    without: ['NONE'],
    kind: 'CUDA-graph',
  });
