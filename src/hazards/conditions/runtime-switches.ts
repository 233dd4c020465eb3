/**
 * Switches that live in the environment or in sub-keys, each read the way vLLM reads it:
 * - decode context parallelism (--decode-context-parallel-size / -dcp ≥ 2);
 * - breakable CUDA graphs (VLLM_USE_BREAKABLE_CUDAGRAPH; vLLM 0.25.0 turned it on by itself for
 *   DeepSeek-V4, vllm#49370; --enforce-eager captures nothing);
 * - an opt-in environment variable of a plugin (ENABLE_KVCACHED=true for kvcached);
 * - the logprobs mode (--logprobs-mode; "raw_logprobs" is vLLM's default).
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { arg, asBool, asString, env, show } from './args.js';
import { enforcedEager } from './cudagraphs.js';
import { sizeAtLeast } from './tensor-parallel.js';

export const decodeContextParallel = (): Condition =>
  sizeAtLeast({
    name: 'decode-context-parallel',
    dest: 'decode_context_parallel_size',
    min: 2,
    what: 'decode context parallelism is on',
  });

export function breakableCudaGraphs(opts: { autoForModelTypes: string[] }): Condition {
  return {
    name: 'breakable-cuda-graphs',
    description:
      'breakable CUDA graphs are on (VLLM_USE_BREAKABLE_CUDAGRAPH=1, which vLLM turns on by itself for DeepSeek-V4)',
    check(d: Deployment): ConditionResult {
      const eager = enforcedEager(d);
      if (eager) return eager;
      const e = env(d, 'VLLM_USE_BREAKABLE_CUDAGRAPH');
      const on = asBool(e?.value);
      if (e && on !== undefined)
        return {
          status: on ? 'met' : 'not-met',
          detail: `VLLM_USE_BREAKABLE_CUDAGRAPH=${e.value}`,
          at: e.at,
        };
      const type = d.modelFacts?.modelType;
      if (type && opts.autoForModelTypes.some((p) => type.startsWith(p)))
        return {
          status: 'met',
          detail: `VLLM_USE_BREAKABLE_CUDAGRAPH is not set: vLLM enables it by itself for model_type ${type}`,
          at: d.model?.at,
        };
      return {
        status: 'unknown',
        detail:
          'VLLM_USE_BREAKABLE_CUDAGRAPH is not set; which models and releases turn it on by themselves is not established beyond DeepSeek-V4',
      };
    },
  };
}

export function envEnabled(opts: { name: string; variable: string; what: string }): Condition {
  return {
    name: opts.name,
    description: `${opts.what} (${opts.variable}=true)`,
    check(d: Deployment): ConditionResult {
      const e = env(d, opts.variable);
      if (!e)
        return {
          status: 'not-met',
          detail: `${opts.variable} is not set in the server's environment: ${opts.what} is opt-in`,
        };
      const on = asBool(e.value);
      if (on === undefined)
        return { status: 'unknown', detail: `${opts.variable}=${e.value} is not a boolean`, at: e.at };
      return { status: on ? 'met' : 'not-met', detail: `${opts.variable}=${e.value}`, at: e.at };
    },
  };
}

export function rawLogprobsMode(): Condition {
  return {
    name: 'raw-logprobs-mode',
    description:
      'logprobs are returned in a raw mode (--logprobs-mode raw_logprobs, vLLM’s default, or raw_logits)',
    check(d: Deployment): ConditionResult {
      const a = arg(d, 'logprobs_mode');
      const m = asString(a?.value)?.toLowerCase();
      if (!a)
        return {
          status: 'met',
          detail: '--logprobs-mode is not given: vLLM returns raw_logprobs by default',
        };
      if (m === 'raw_logprobs' || m === 'raw_logits')
        return { status: 'met', detail: `--logprobs-mode ${m}`, at: a.at };
      if (m === 'processed_logprobs' || m === 'processed_logits')
        return {
          status: 'not-met',
          detail: `--logprobs-mode ${m}: processed values are what the sampler modified anyway`,
          at: a.at,
        };
      return {
        status: 'unknown',
        detail: `--logprobs-mode ${show(a.value)} is not a mode faultline knows`,
        at: a.at,
      };
    },
  };
}
