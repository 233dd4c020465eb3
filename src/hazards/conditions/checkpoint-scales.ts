/**
 * Whether the checkpoint stores a calibrated q_scale, or calibrated k/v scales (values ≠ 1.0), read
 * from its safetensors headers (deployment/checkpoint-scales.ts). vLLM uses 1.0 for a scale the
 * checkpoint lacks. Without an inspected checkpoint the scales are unknown, never assumed.
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';

const NOT_INSPECTED =
  'no checkpoint inspected, so its scales are unknown (pass --model-config with the checkpoint directory to read the safetensors headers)';

function sample(xs: number[]): string {
  return [...new Set(xs)]
    .slice(0, 3)
    .map((x) => x.toPrecision(4))
    .join(', ');
}

export function calibratedQScale(): Condition {
  return {
    name: 'checkpoint-q-scale-not-one',
    description: 'the checkpoint stores a calibrated q_scale (≠ 1.0) for the attention layers',
    check(d: Deployment): ConditionResult {
      const s = d.modelFacts?.scales;
      if (!s) return { status: 'unknown', detail: NOT_INSPECTED, at: d.model?.at };
      if (!s.present.q)
        return { status: 'not-met', detail: 'the checkpoint has no q_scale: vLLM uses 1.0', at: d.model?.at };
      if (!s.q)
        return {
          status: 'unknown',
          detail: 'the checkpoint has q_scale tensors whose values were not read',
          at: d.model?.at,
        };
      const odd = s.q.filter((x) => x !== 1);
      return odd.length
        ? {
            status: 'met',
            detail: `${odd.length} of ${s.q.length} layers carry q_scale ≠ 1 (e.g. ${sample(odd)})`,
            at: d.model?.at,
          }
        : { status: 'not-met', detail: 'every stored q_scale is 1.0', at: d.model?.at };
    },
  };
}

export function uncalibratedKvScales(): Condition {
  return {
    name: 'kv-scales-uncalibrated',
    description: 'the KV cache runs on default scales: the checkpoint stores no k/v scales, or only 1.0',
    check(d: Deployment): ConditionResult {
      const s = d.modelFacts?.scales;
      if (!s) return { status: 'unknown', detail: NOT_INSPECTED, at: d.model?.at };
      if ((s.present.k && !s.k) || (s.present.v && !s.v))
        return {
          status: 'unknown',
          detail: 'the checkpoint has k/v scale tensors whose values were not read',
          at: d.model?.at,
        };
      const odd = [...(s.k ?? []), ...(s.v ?? [])].filter((x) => x !== 1);
      return odd.length
        ? {
            status: 'not-met',
            detail: `the checkpoint stores calibrated k/v scales (e.g. ${sample(odd)})`,
            at: d.model?.at,
          }
        : {
            status: 'met',
            detail:
              s.present.k || s.present.v
                ? 'every stored k/v scale is 1.0'
                : 'the checkpoint has no k/v scales: vLLM uses 1.0',
            at: d.model?.at,
          };
    },
  };
}
