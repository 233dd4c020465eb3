/**
 * The model family a report names, matched on config.json's model_type (text config for
 * multimodal checkpoints). Reports that saw a defect on one family only say nothing either way
 * about others; a hazard uses this where the mechanism is tied to the family.
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { noModelFacts } from './no-model-facts.js';

export function modelTypeIs(opts: { name: string; family: string; prefixes: string[] }): Condition {
  return {
    name: opts.name,
    role: 'fact',
    description: `the model is ${opts.family} (model_type ${opts.prefixes.map((p) => `${p}*`).join(', ')})`,
    check(d: Deployment): ConditionResult {
      const f = d.modelFacts;
      if (!f) return noModelFacts(d, `whether it is ${opts.family}`);
      const t = f.modelType;
      if (!t) return { status: 'unknown', detail: `${f.source} names no model_type`, at: d.model?.at };
      return opts.prefixes.some((p) => t.startsWith(p))
        ? { status: 'met', detail: `model_type ${t} (${f.source})`, at: d.model?.at }
        : { status: 'not-met', detail: `model_type ${t} is not ${opts.family}`, at: d.model?.at };
    },
  };
}

/** The model takes images or audio: config.json declares a vision or audio tower. */
export function multimodalModel(): Condition {
  return {
    name: 'multimodal-model',
    role: 'fact',
    description: 'the model takes media inputs (config.json declares a vision_config or audio_config)',
    check(d: Deployment): ConditionResult {
      const f = d.modelFacts;
      if (!f) return noModelFacts(d, 'whether it takes images');
      if (f.multimodal === undefined)
        return {
          status: 'unknown',
          detail: `${f.source}: whether the model has a vision or audio tower was not read`,
          at: d.model?.at,
        };
      return f.multimodal
        ? { status: 'met', detail: `${f.source} declares a vision or audio tower`, at: d.model?.at }
        : {
            status: 'not-met',
            detail: `${f.source} declares no vision or audio tower: text only`,
            at: d.model?.at,
          };
    },
  };
}
