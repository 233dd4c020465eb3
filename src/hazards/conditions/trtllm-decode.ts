/**
 * Whether FlashInfer decode (and spec-verify-as-decode) runs on the trtllm-gen kernels.
 * Since vLLM PR #28479 decode routing is static: on SM100 every decode slice goes to trtllm-gen unless
 * `attention_config.use_trtllm_attention=false`, VLLM_BATCH_INVARIANT, decode context parallelism,
 * or missing cubins (research/vllm-flashinfer.md §1.5). VLLM_USE_TRTLLM_ATTENTION was removed with
 * PR #32812 and no longer has an effect.
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { arg, asBool, asInt, env, subArg } from './args.js';

export function trtllmGenDecode(): Condition {
  return {
    name: 'trtllm-gen-decode',
    description:
      'decode is not forced off trtllm-gen (attention_config.use_trtllm_attention is not false, no VLLM_BATCH_INVARIANT, no decode context parallelism)',
    check(d: Deployment): ConditionResult {
      const force = subArg(d, 'attention_config', 'use_trtllm_attention');
      const forced = asBool(force?.value);
      if (forced === false)
        return {
          status: 'not-met',
          detail: 'attention_config.use_trtllm_attention=false routes decode to FlashInfer’s native wrapper',
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
      const old = env(d, 'VLLM_USE_TRTLLM_ATTENTION');
      const oldNote = old
        ? ` (VLLM_USE_TRTLLM_ATTENTION=${old.value} is ignored: removed in vLLM PR #32812)`
        : '';
      if (forced === true)
        return {
          status: 'met',
          detail: `attention_config.use_trtllm_attention=true forces trtllm-gen${oldNote}`,
          at: force?.at,
        };
      return {
        status: 'met',
        detail: `use_trtllm_attention is unset: vLLM routes every decode slice to trtllm-gen where supported (PR #28479)${oldNote}`,
        at: force?.at,
      };
    },
  };
}
