/**
 * Which attention backend vLLM picks (research/vllm-flashinfer.md §2, configs-and-cli.md §2.4, §3.2):
 * - explicit: `--attention-backend NAME` or `--attention-config.backend NAME` ("auto" = unset);
 * - unset on compute capability 10.x: FLASHINFER is first in the priority list;
 *   unset elsewhere: FLASH_ATTN comes first;
 * - Gemma 4 (heterogeneous head dims) forces TRITON_ATTN (FA4 on newer main) *only when the backend
 *   is unset*: an explicit FLASHINFER bypasses that safeguard;
 * - the VLLM_ATTENTION_BACKEND env var was removed (PR #32812, 2026-01-21) and is ignored.
 */
import type { SourceLocation } from '../../core/errors.js';
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { arg, asString, env, subArg } from './args.js';
import { inFamily } from './gpu.js';

export interface ExplicitBackend {
  name: string;
  spelled: string;
  at?: SourceLocation;
}

export function explicitAttentionBackend(d: Deployment): ExplicitBackend | undefined {
  const flag = arg(d, 'attention_backend');
  const flagName = asString(flag?.value);
  if (flagName && flagName.toLowerCase() !== 'auto')
    return { name: flagName.toUpperCase(), spelled: `--attention-backend ${flagName}`, at: flag?.at };
  const sub = subArg(d, 'attention_config', 'backend');
  const subName = asString(sub?.value);
  if (subName && subName.toLowerCase() !== 'auto')
    return { name: subName.toUpperCase(), spelled: `attention_config.backend=${subName}`, at: sub?.at };
  return undefined;
}

export function isGemma4(d: Deployment): boolean {
  return d.modelFacts?.modelType?.startsWith('gemma4') ?? false;
}

function ignoredEnvNote(d: Deployment): string {
  const e = env(d, 'VLLM_ATTENTION_BACKEND');
  return e
    ? ` (VLLM_ATTENTION_BACKEND=${e.value} is ignored: vLLM removed that variable in PR #32812, Jan 2026)`
    : '';
}

/** The FlashInfer backend serves the model's attention layers (explicitly, or as the SM100 default). */
export function flashInferBackend(): Condition {
  return {
    name: 'flashinfer-backend',
    description:
      'attention runs on FlashInfer: --attention-backend FLASHINFER, or no backend given on an SM100-family GPU (its default)',
    check(d): ConditionResult {
      const explicit = explicitAttentionBackend(d);
      if (explicit) {
        if (explicit.name !== 'FLASHINFER')
          return {
            status: 'not-met',
            detail: `${explicit.spelled} selects another backend`,
            at: explicit.at,
          };
        const bypass = isGemma4(d)
          ? "; an explicit FLASHINFER bypasses Gemma 4's automatic TRITON_ATTN choice"
          : '';
        return { status: 'met', detail: `${explicit.spelled} is explicit${bypass}`, at: explicit.at };
      }
      const note = ignoredEnvNote(d);
      const gpu = d.gpu;
      if (!gpu)
        return {
          status: 'unknown',
          detail: `no backend given; FlashInfer is the default only on SM100-family GPUs, and the GPU is unknown${note}`,
        };
      if (inFamily(gpu.value.sm, 120) && d.modelFacts?.modelType?.startsWith('gpt_oss'))
        return {
          status: 'unknown',
          detail: `no backend given; on SM12x vLLM builds with FlashInfer XQA decode (PR #49718 on) pick FlashInfer for attention-sink models such as gpt-oss, older ones do not${note}`,
          at: gpu.at,
        };
      if (!inFamily(gpu.value.sm, 100))
        return {
          status: 'not-met',
          detail: `no backend given; on this GPU vLLM tries FLASH_ATTN before FLASHINFER${note}`,
          at: gpu.at,
        };
      if (isGemma4(d))
        return {
          status: 'not-met',
          detail: `no backend given; for Gemma 4 (heterogeneous head dims) vLLM forces TRITON_ATTN (FA4 on newer versions) instead of FlashInfer${note}`,
          at: d.model?.at,
        };
      return {
        status: 'met',
        detail: `no backend given; FLASHINFER is vLLM's first choice on compute capability 10.x${note}`,
        at: d.at,
      };
    },
  };
}
