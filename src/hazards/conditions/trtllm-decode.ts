/**
 * Whether FlashInfer decode (and spec-verify-as-decode) runs on the trtllm-gen kernels.
 * Since vLLM PR #28479 decode routing is static: on SM100 every decode slice goes to trtllm-gen unless
 * `attention_config.use_trtllm_attention=false`, VLLM_BATCH_INVARIANT, decode context parallelism,
 * or missing cubins (research/vllm-flashinfer.md §1.5). VLLM_USE_TRTLLM_ATTENTION sets the same field
 * in vLLM < 0.15.0 only (removed by PR #32812).
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { arg, asBool, asInt, attentionSetting, env } from './args.js';

export function trtllmGenDecode(): Condition {
  return {
    name: 'trtllm-gen-decode',
    description:
      'decode is not forced off trtllm-gen (attention_config.use_trtllm_attention is not false, no VLLM_BATCH_INVARIANT, no decode context parallelism)',
    check(d: Deployment): ConditionResult {
      const force = attentionSetting(d, 'use_trtllm_attention');
      if (force?.uncertain) return { status: 'unknown', detail: force.uncertain, at: force.at };
      const forced = asBool(force?.value);
      if (forced === false)
        return {
          status: 'not-met',
          detail: `${force?.spelled} routes decode to FlashInfer’s native wrapper`,
          at: force?.at,
        };
      const bi = env(d, 'VLLM_BATCH_INVARIANT');
      if (bi && asBool(bi.value))
        return {
          status: 'not-met',
          detail: `VLLM_BATCH_INVARIANT=${bi.value} disables TRTLLM attention`,
          at: bi.at,
        };
      const dcp = arg(d, 'decode_context_parallel_size');
      const dcpSize = asInt(dcp?.value);
      if (dcpSize !== undefined && dcpSize > 1)
        return {
          status: 'not-met',
          detail: `--decode-context-parallel-size ${dcpSize} turns TRTLLM attention off`,
          at: dcp?.at,
        };
      const note = force?.note ? ` (${force.note})` : '';
      if (forced === true)
        return { status: 'met', detail: `${force?.spelled} forces trtllm-gen${note}`, at: force?.at };
      return {
        status: 'met',
        detail: `use_trtllm_attention is unset: vLLM routes every decode slice to trtllm-gen where supported (PR #28479)${note}`,
        at: force?.at,
        byDefault: true,
      };
    },
  };
}
