/**
 * Whether FlashInfer keeps the query in BF16 next to an FP8 KV cache.
 * `attention_config.disable_flashinfer_q_quantization=true` ("when using fp8 kv, do not quantize Q to
 * fp8") makes the builder choose the model dtype for Q on prefill and decode
 * (research/vllm-flashinfer.md §1.4). The old env var VLLM_FLASHINFER_DISABLE_Q_QUANTIZATION was
 * removed in PR #32812 (2026-01-21); older versions honoured it.
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { asBool, env, subArg } from './args.js';

export function qQuantizationDisabled(): Condition {
  return {
    name: 'q-quantization-disabled',
    description:
      'FlashInfer query quantization is disabled (attention_config.disable_flashinfer_q_quantization=true): Q stays BF16',
    check(d: Deployment): ConditionResult {
      const flag = subArg(d, 'attention_config', 'disable_flashinfer_q_quantization');
      const v = asBool(flag?.value);
      if (v === true)
        return {
          status: 'met',
          detail:
            'attention_config.disable_flashinfer_q_quantization=true keeps the query in BF16 next to the FP8 cache',
          at: flag?.at,
        };
      if (v === false)
        return {
          status: 'not-met',
          detail: 'attention_config.disable_flashinfer_q_quantization=false: the query is quantized to FP8',
          at: flag?.at,
        };
      const old = env(d, 'VLLM_FLASHINFER_DISABLE_Q_QUANTIZATION');
      if (old && asBool(old.value))
        return {
          status: 'unknown',
          detail: `VLLM_FLASHINFER_DISABLE_Q_QUANTIZATION=${old.value} is honoured only by vLLM versions before PR #32812 (2026-01-21), which removed it`,
          at: old.at,
        };
      if (flag)
        return {
          status: 'unknown',
          detail: `disable_flashinfer_q_quantization=${String(flag.value)} is not a boolean`,
          at: flag.at,
        };
      return {
        status: 'not-met',
        detail:
          'disable_flashinfer_q_quantization is not set: with an FP8 cache FlashInfer quantizes the query to FP8 (the default)',
      };
    },
  };
}
