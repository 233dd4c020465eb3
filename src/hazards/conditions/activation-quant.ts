/**
 * The checkpoint quantizes the activations after a norm statically to FP8, or to NVFP4 — the inputs
 * vLLM's fused RMSNorm + quant patterns produce (research/interaction-bugs.md B9 names "static FP8 or
 * NVFP4"). From the checkpoint's declared quantization (deployment/checkpoint-quant.ts). Dynamic FP8
 * and weight-only schemes are outside the record; online `--quantization` of an unquantized checkpoint
 * is not classified by the record, so it is unknown.
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { arg, show } from './args.js';
import { noModelFacts } from './no-model-facts.js';

export function staticFp8OrNvfp4Activations(): Condition {
  return {
    name: 'static-fp8-or-nvfp4-quant',
    description: 'the checkpoint quantizes linear-layer inputs statically to FP8, or to NVFP4',
    check(d: Deployment): ConditionResult {
      const f = d.modelFacts;
      if (!f) return noModelFacts(d, 'its quantization');
      const q = f.quantization;
      if (!q) {
        const online = arg(d, 'quantization');
        if (online)
          return {
            status: 'unknown',
            detail: `--quantization ${show(online.value)} on a checkpoint that declares none: the record does not say whether that quantizes activations statically`,
            at: online.at,
          };
        return { status: 'not-met', detail: 'the checkpoint declares no quantization', at: d.model?.at };
      }
      switch (q.activations) {
        case 'fp8-static':
          return { status: 'met', detail: `${q.evidence}: static FP8 activations`, at: d.model?.at };
        case 'nvfp4':
          return { status: 'met', detail: `${q.evidence}: NVFP4 activations`, at: d.model?.at };
        case 'fp8-dynamic':
          return {
            status: 'not-met',
            detail: `${q.evidence}: dynamic FP8 activations (the record names static FP8 and NVFP4)`,
            at: d.model?.at,
          };
        case 'weight-only':
          return {
            status: 'not-met',
            detail: `${q.evidence}: weight-only, activations stay BF16`,
            at: d.model?.at,
          };
        default:
          return {
            status: 'unknown',
            detail: `${q.evidence}: faultline cannot tell how this scheme quantizes activations`,
            at: d.model?.at,
          };
      }
    },
  };
}
