/**
 * Gemma-style RMSNorm: the effective weight is `weight.float() + 1.0`, i.e. FP32, next to BF16
 * activations. research/interaction-bugs.md B9 names the model families that use it: Gemma and
 * Qwen3.5/3.6. Matched by config.json model_type prefix: `gemma` (gemma, gemma2, gemma3, gemma3_text,
 * gemma4 …) and `qwen3_5` / `qwen3_6`. Other families are outside the record.
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { noModelFacts } from './no-model-facts.js';

const FAMILIES = ['gemma', 'qwen3_5', 'qwen3_6'];

export function gemmaStyleRmsNorm(): Condition {
  return {
    name: 'gemma-style-rmsnorm',
    description:
      'the model uses Gemma-style RMSNorm with an FP32 effective weight (Gemma, Qwen3.5/3.6: model_type gemma*, qwen3_5*, qwen3_6*)',
    check(d: Deployment): ConditionResult {
      const f = d.modelFacts;
      if (!f) return noModelFacts(d, 'the model family');
      const t = f.modelType;
      if (!t)
        return {
          status: 'unknown',
          detail: `${f.source} names no model_type, so whether the model uses Gemma-style RMSNorm is unknown`,
          at: d.model?.at,
        };
      if (FAMILIES.some((p) => t.startsWith(p)))
        return {
          status: 'met',
          detail: `model_type ${t} uses Gemma-style RMSNorm (weight.float() + 1.0) with BF16 activations (${f.source})`,
          at: d.model?.at,
        };
      return {
        status: 'not-met',
        detail: `model_type ${t} is not among the families the record names (Gemma, Qwen3.5/3.6)`,
        at: d.model?.at,
      };
    },
  };
}
