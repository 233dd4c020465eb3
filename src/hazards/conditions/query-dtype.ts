/**
 * Whether FlashInfer keeps the query in BF16 next to an FP8 KV cache.
 * `attention_config.disable_flashinfer_q_quantization=true` ("when using fp8 kv, do not quantize Q to
 * fp8") makes the builder choose the model dtype for Q on prefill and decode
 * (research/vllm-flashinfer.md §1.4). The old env var VLLM_FLASHINFER_DISABLE_Q_QUANTIZATION overrides
 * it in vLLM < 0.15.0 and is ignored from 0.15.0 on (PR #32812; deployment/env-vars.ts).
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { asBool, attentionSetting, show } from './args.js';

export function qQuantizationDisabled(): Condition {
  return {
    name: 'q-quantization-disabled',
    description:
      'FlashInfer query quantization is disabled (attention_config.disable_flashinfer_q_quantization=true): Q stays BF16',
    check(d: Deployment): ConditionResult {
      const s = attentionSetting(d, 'disable_flashinfer_q_quantization', { default: false });
      if (s?.uncertain) return { status: 'unknown', detail: s.uncertain, at: s.at };
      const note = s?.note ? ` (${s.note})` : '';
      const v = asBool(s?.value);
      if (v === true)
        return {
          status: 'met',
          detail: `${s?.spelled} keeps the query in BF16 next to the FP8 cache${note}`,
          at: s?.at,
        };
      if (v === false)
        return {
          status: 'not-met',
          detail: `${s?.spelled}: the query is quantized to FP8${note}`,
          at: s?.at,
        };
      if (s && s.value !== undefined)
        return {
          status: 'unknown',
          detail: `disable_flashinfer_q_quantization=${show(s.value)} is not a boolean`,
          at: s.at,
        };
      return {
        status: 'not-met',
        detail: `disable_flashinfer_q_quantization is not set: with an FP8 cache FlashInfer quantizes the query to FP8 (the default)${note}`,
      };
    },
  };
}
