/**
 * Attention backends that read vLLM's host-side *float* copies of the attention scales
 * (`_q_scale_float`, `_k_scale_float`, `_v_scale_float`) rather than the scale tensors. The public
 * record (research/interaction-bugs.md B16, vllm PR #34863) lists FlashInfer (bmm1/bmm2 scales in
 * prefill, decode, DCP and tree attention), ROCm AITER unified attention and FlashInfer MLA / MLA
 * sparse; FlashAttention and Triton read the tensors. Any other named backend is not covered by the
 * record either way. With no backend given: FlashInfer is vLLM's first choice on compute capability
 * 10.x (except Gemma 4, which gets TRITON_ATTN); elsewhere FLASH_ATTN is tried first and vLLM moves on
 * to FLASHINFER when it rejects the configuration (research/vllm-flashinfer.md §2.4) — whether it
 * rejects an FP8 cache on a given GPU is not established here, so that case is unknown.
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { chosenAttentionBackend, isGemma4 } from './attention-backend.js';
import { inFamily } from './gpu.js';

export const FLOAT_SCALE_BACKENDS = [
  'FLASHINFER',
  'FLASHINFER_MLA',
  'FLASHINFER_MLA_SPARSE',
  'ROCM_AITER_UNIFIED_ATTN',
] as const;
const TENSOR_SCALE_BACKENDS = ['FLASH_ATTN', 'TRITON_ATTN'];

export function floatScaleBackend(): Condition {
  return {
    name: 'float-scale-backend',
    description: `attention runs on a backend that reads the float scale copies (${FLOAT_SCALE_BACKENDS.join(', ')})`,
    check(d: Deployment): ConditionResult {
      const choice = chosenAttentionBackend(d);
      if (choice.uncertain) return { status: 'unknown', detail: choice.uncertain };
      const note = choice.note ? ` (${choice.note})` : '';
      const b = choice.explicit;
      if (b) {
        if ((FLOAT_SCALE_BACKENDS as readonly string[]).includes(b.name))
          return {
            status: 'met',
            detail: `${b.spelled} reads the float scale copies${note}`,
            at: b.at,
          };
        if (TENSOR_SCALE_BACKENDS.includes(b.name))
          return { status: 'not-met', detail: `${b.spelled} reads the scale tensors${note}`, at: b.at };
        return {
          status: 'unknown',
          detail: `${b.spelled}: the public record does not say whether it reads the float scale copies${note}`,
          at: b.at,
        };
      }
      const gpu = d.gpu;
      if (!gpu)
        return {
          status: 'unknown',
          detail: `no backend given, and the GPU is unknown (--gpu): FlashInfer is the default on SM100-family GPUs${note}`,
        };
      if (inFamily(gpu.value.sm, 100))
        return isGemma4(d)
          ? {
              status: 'not-met',
              detail: `no backend given; for Gemma 4 vLLM picks TRITON_ATTN (FA4 on newer versions)${note}`,
              at: d.model?.at,
            }
          : {
              status: 'met',
              detail: `no backend given; FLASHINFER is vLLM's first choice on compute capability 10.x${note}`,
              at: d.at,
            };
      return {
        status: 'unknown',
        detail: `no backend given; on this GPU vLLM tries FLASH_ATTN first and falls back to FLASHINFER when FLASH_ATTN rejects the configuration — whether it accepts this FP8 cache is not established (set --attention-backend)${note}`,
        at: gpu.at,
      };
    },
  };
}
