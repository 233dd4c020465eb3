/**
 * SGLang's FlashInfer backend prefills through the paged-only wrapper (no ragged pass) when
 * SGLANG_FLASHINFER_USE_PAGED=1, under --enable-deterministic-inference, with piecewise CUDA-graph
 * prefill, for multimodal models and for multi-item scoring (research/interaction-bugs.md C1,
 * sgl-project/sglang PR #31501). A multimodal model shows itself by a `…ForConditionalGeneration`
 * architecture.
 */
import type { Deployment } from '../../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../../hazard.js';
import { noModelFacts } from '../no-model-facts.js';
import { sglArg } from './args.js';

export function pagedOnlyPrefill(): Condition {
  return {
    name: 'paged-only-prefill',
    description:
      'prefill runs through FlashInfer’s paged-only wrapper: SGLANG_FLASHINFER_USE_PAGED=1, --enable-deterministic-inference, --enable-piecewise-cuda-graph, multi-item scoring, or a multimodal model',
    check(d: Deployment): ConditionResult {
      const env = d.env.get('SGLANG_FLASHINFER_USE_PAGED');
      if (env && ['1', 'true', 'True'].includes(env.value))
        return { status: 'met', detail: `SGLANG_FLASHINFER_USE_PAGED=${env.value}`, at: env.at };
      for (const field of [
        'enable_deterministic_inference',
        'enable_piecewise_cuda_graph',
        'enable_multi_item_scoring',
      ]) {
        const v = sglArg(d, field);
        if (v.value === true)
          return {
            status: 'met',
            detail: `--${field.replace(/_/g, '-')} prefills through the paged-only wrapper`,
            at: v.at,
          };
      }
      if (!d.modelFacts) return noModelFacts(d, 'whether the model is multimodal');
      const arch = d.modelFacts.architectures?.[0];
      if (arch?.endsWith('ForConditionalGeneration'))
        return {
          status: 'met',
          detail: `${arch} is a multimodal model: SGLang prefills it through the paged wrapper`,
          at: d.model?.at,
        };
      return {
        status: 'not-met',
        detail: 'none of the paged-only prefill triggers is set, and the model is text-only',
        at: d.at,
      };
    },
  };
}
