/**
 * Which attention backend vLLM picks (research/vllm-flashinfer.md §2, configs-and-cli.md §2.4, §3.2):
 * - explicit: `--attention-backend NAME` or `--attention-config.backend NAME` ("auto" = unset);
 * - unset on compute capability 10.x: FLASHINFER is first in the priority list;
 *   unset elsewhere: FLASH_ATTN comes first;
 * - Gemma 4 (heterogeneous head dims) forces TRITON_ATTN (FA4 on newer main) *only when the backend
 *   is unset*: an explicit FLASHINFER bypasses that safeguard;
 * - VLLM_ATTENTION_BACKEND overrides the command line in vLLM < 0.15.0 and is ignored from 0.15.0 on
 *   (PR #32812; deployment/env-vars.ts).
 */
import type { SourceLocation } from '../../core/errors.js';
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { arg, asString, attentionSetting, subArg } from './args.js';
import { inFamily } from './gpu.js';
import { perDeployment } from '../../deployment/per-deployment.js';

export interface ExplicitBackend {
  name: string;
  spelled: string;
  at?: SourceLocation;
}

export interface BackendChoice {
  /** Set when the launch names a backend (flag, attention_config.backend, or an env var the version reads). */
  explicit?: ExplicitBackend;
  /** Why the choice cannot be known (env var vs command line with the version unknown). */
  uncertain?: string;
  /** A remark about an ignored env var. */
  note?: string;
}

/** The backend the launch asks for, if any; "auto" counts as none. */
export const chosenAttentionBackend = perDeployment(function chooseAttentionBackend(d: Deployment): BackendChoice {
  const flag = arg(d, 'attention_backend');
  const flagName = asString(flag?.value);
  const useFlag = Boolean(flagName && flagName.toLowerCase() !== 'auto');
  const cli = useFlag ? flag : subArg(d, 'attention_config', 'backend');
  const viaFlag = useFlag ? '--attention-backend' : 'attention_config.backend';
  const s = attentionSetting(d, 'backend', { cli });
  if (!s) return {};
  if (s.uncertain) return { uncertain: s.uncertain };
  const name = asString(s.value);
  const note = s.note;
  if (!name || name.toLowerCase() === 'auto') return { note };
  const spelled = s.spelled.startsWith('attention_config.backend=') ? `${viaFlag} ${name}` : s.spelled;
  return { explicit: { name: name.toUpperCase(), spelled, at: s.at }, note };
});

export function explicitAttentionBackend(d: Deployment): ExplicitBackend | undefined {
  return chosenAttentionBackend(d).explicit;
}

export function isGemma4(d: Deployment): boolean {
  return d.modelFacts?.modelType?.startsWith('gemma4') ?? false;
}

/** The FlashInfer backend serves the model's attention layers (explicitly, or as the SM100 default). */
export function flashInferBackend(): Condition {
  return {
    name: 'flashinfer-backend',
    description:
      'attention runs on FlashInfer: --attention-backend FLASHINFER, or no backend given on an SM100-family GPU (its default)',
    check(d): ConditionResult {
      const choice = chosenAttentionBackend(d);
      if (choice.uncertain) return { status: 'unknown', detail: choice.uncertain };
      const note = choice.note ? ` (${choice.note})` : '';
      const explicit = choice.explicit;
      if (explicit) {
        if (explicit.name !== 'FLASHINFER')
          return {
            status: 'not-met',
            detail: `${explicit.spelled} selects another backend${note}`,
            at: explicit.at,
          };
        const bypass = isGemma4(d)
          ? "; an explicit FLASHINFER bypasses Gemma 4's automatic TRITON_ATTN choice"
          : '';
        return { status: 'met', detail: `${explicit.spelled} is explicit${bypass}${note}`, at: explicit.at };
      }
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
