/**
 * FlashInfer serving attention on SM12x, by flag or by vLLM's automatic choice: with an FP8 KV
 * cache FLASH_ATTN drops out of the candidates and auto-selection lands on FlashInfer
 * (vllm#53481: "forcing --kv-cache-dtype fp8_e4m3 removes FLASH_ATTN from the backend candidates").
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { chosenAttentionBackend } from './attention-backend.js';
import { resolveKvCacheDtype } from './kv-cache.js';

export function flashInferOnSm12x(): Condition {
  return {
    name: 'flashinfer-backend',
    description:
      'attention runs on FlashInfer: --attention-backend FLASHINFER, or no backend given with an FP8 KV cache (auto-selection then lands on FlashInfer)',
    check(d: Deployment): ConditionResult {
      const choice = chosenAttentionBackend(d);
      if (choice.uncertain) return { status: 'unknown', detail: choice.uncertain };
      const b = choice.explicit;
      if (b)
        return b.name === 'FLASHINFER'
          ? { status: 'met', detail: `${b.spelled}`, at: b.at }
          : { status: 'not-met', detail: `${b.spelled}: another backend`, at: b.at };
      const kv = resolveKvCacheDtype(d);
      if (kv.dtype === undefined)
        return { status: 'unknown', detail: `no backend given; ${kv.how}`, at: kv.at };
      return kv.dtype.startsWith('fp8')
        ? {
            status: 'met',
            detail: `no backend given and ${kv.how}: FLASH_ATTN drops out, auto-selection lands on FLASHINFER`,
            at: kv.at,
          }
        : {
            status: 'not-met',
            detail: `no backend given and ${kv.how}: vLLM keeps FLASH_ATTN first`,
            at: kv.at,
          };
    },
  };
}
