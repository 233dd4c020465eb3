/**
 * Model and platform conditions for SGLang hazards: which model family a launch serves (by the
 * checkpoint's architectures / model_type, or — without a model config — unknown with a hint from
 * the model name), and whether it runs on an AMD GPU (faultline's GPU table is NVIDIA only, so an
 * AMD launch shows itself by its ROCm image or an AMD-only attention backend).
 */
import type { Deployment } from '../../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../../hazard.js';
import { noModelFacts } from '../no-model-facts.js';
import { backendOf } from './conditions.js';

export interface ModelMatcher {
  /** config.json architectures (first entry) that match. */
  architectures?: readonly string[];
  /** model_type values that match. */
  modelTypes?: readonly string[];
  /** For the hint when no model config is given. */
  namePattern: RegExp;
}

export function modelIs(name: string, description: string, m: ModelMatcher): Condition {
  return {
    name,
    role: 'fact',
    description,
    check(d: Deployment): ConditionResult {
      const f = d.modelFacts;
      if (!f) {
        const r = noModelFacts(d, 'the model family');
        const hint = m.namePattern.test(d.model?.value ?? '') ? '; the model name suggests it is one' : '';
        return { ...r, detail: `${r.detail}${hint}` };
      }
      const arch = f.architectures?.[0];
      const ok =
        (arch !== undefined && m.architectures?.includes(arch)) ||
        (f.modelType !== undefined && m.modelTypes?.includes(f.modelType));
      const what =
        [arch, f.modelType && `model_type ${f.modelType}`].filter(Boolean).join(', ') ||
        'an unnamed architecture';
      return ok
        ? { status: 'met', detail: `${what} (${f.source})`, at: d.model?.at }
        : { status: 'not-met', detail: `${what} is not ${description}`, at: d.model?.at };
    },
  };
}

const AMD_BACKENDS = ['aiter', 'wave'];

export function amdGpu(): Condition {
  return {
    name: 'amd-gpu',
    role: 'fact',
    description: 'the server runs on AMD GPUs (ROCm)',
    check(d: Deployment): ConditionResult {
      if (d.gpu?.value.vendor === 'amd' || d.platform?.value === 'rocm')
        return {
          status: 'met',
          detail: d.platform?.evidence ?? 'the launch runs on AMD GPUs',
          at: d.platform?.at ?? d.gpu?.at,
        };
      if (d.platform?.value === 'cuda' && !d.gpu)
        return {
          status: 'not-met',
          detail: `the launch runs on NVIDIA GPUs: ${d.platform.evidence}`,
          at: d.platform.at,
        };
      if (d.gpu)
        return {
          status: 'not-met',
          detail: `${d.gpu.value.name ?? `SM${d.gpu.value.sm}`} is an NVIDIA GPU`,
          at: d.gpu.at,
        };
      const b = backendOf(d, 'decode');
      if (b.value != null && AMD_BACKENDS.includes(String(b.value)))
        return {
          status: 'met',
          detail: `attention backend ${String(b.value)} runs on AMD GPUs only`,
          at: b.at,
        };
      return {
        status: 'unknown',
        detail: 'no GPU given (--gpu) and nothing in the launch names the platform',
        at: d.at,
      };
    },
  };
}
