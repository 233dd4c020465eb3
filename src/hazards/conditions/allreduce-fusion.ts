/**
 * vLLM's allreduce + RMSNorm fusion compile pass, `compilation_config.pass_config.fuse_allreduce_rms`
 * (`-cc.pass_config.fuse_allreduce_rms=true`; research/configs-and-cli.md §2.2). The public record
 * (research/interaction-bugs.md B9) shows it set explicitly; whether a given vLLM release or
 * optimization level turns it on by default is not established, so an unset pass is unknown.
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { asBool, env, show, subArg } from './args.js';

export function allreduceRmsFusion(): Condition {
  return {
    name: 'allreduce-rms-fusion',
    description:
      'the allreduce + RMSNorm fusion pass is on (compilation_config.pass_config.fuse_allreduce_rms)',
    check(d: Deployment): ConditionResult {
      const pc = subArg(d, 'compilation_config', 'pass_config');
      const cfg = pc?.value;
      const set =
        cfg !== null &&
        typeof cfg === 'object' &&
        !Array.isArray(cfg) &&
        Object.hasOwn(cfg, 'fuse_allreduce_rms')
          ? (cfg as Record<string, unknown>).fuse_allreduce_rms
          : undefined;
      const backend = env(d, 'VLLM_FLASHINFER_ALLREDUCE_BACKEND');
      const via = backend ? ` (VLLM_FLASHINFER_ALLREDUCE_BACKEND=${backend.value})` : '';
      const on = asBool(set);
      if (on === true)
        return {
          status: 'met',
          detail: `compilation_config.pass_config.fuse_allreduce_rms=true${via}`,
          at: pc?.at,
        };
      if (on === false)
        return {
          status: 'not-met',
          detail:
            'compilation_config.pass_config.fuse_allreduce_rms=false: allreduce and RMSNorm stay separate ops',
          at: pc?.at,
        };
      if (set !== undefined)
        return {
          status: 'unknown',
          detail: `compilation_config.pass_config.fuse_allreduce_rms=${show(set)} is not a boolean`,
          at: pc?.at,
        };
      return {
        status: 'unknown',
        detail: `compilation_config.pass_config.fuse_allreduce_rms is not set; whether this vLLM version and optimization level enable it by default is not established (set it explicitly)${via}`,
        at: pc?.at ?? backend?.at,
      };
    },
  };
}
