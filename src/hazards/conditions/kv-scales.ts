/**
 * The checkpoint stores KV-cache scales that are not all 1.0. A backend that keeps using vLLM's
 * default float copies (1.0) instead of the loaded scales is wrong only then
 * (research/interaction-bugs.md B16, vllm-flashinfer.md §4: defaults are 1.0, a checkpoint without
 * scales gets 1.0). Without an inspected checkpoint the scales are unknown — never assumed 1.0.
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';

export function kvScalesNotOne(): Condition {
  return {
    name: 'checkpoint-kv-scales-not-one',
    description:
      'the checkpoint stores q/k/v scales and some are not 1.0 (the default the float copies keep)',
    check(d: Deployment): ConditionResult {
      const s = d.modelFacts?.scales;
      if (!s)
        return {
          status: 'unknown',
          detail:
            'no checkpoint inspected, so its KV scales are unknown (pass --model-config with the checkpoint directory to read the safetensors headers)',
          at: d.model?.at,
        };
      const odd = [...(s.q ?? []), ...(s.k ?? []), ...(s.v ?? [])].filter((x) => x !== 1);
      if (odd.length > 0) {
        const sample = [...new Set(odd)]
          .slice(0, 3)
          .map((x) => x.toPrecision(4))
          .join(', ');
        return {
          status: 'met',
          detail: `${odd.length} stored q/k/v scales are not 1.0 (e.g. ${sample}); a default of 1.0 misreads the FP8 cache`,
          at: d.model?.at,
        };
      }
      const unread = (s.present.q && !s.q) || (s.present.k && !s.k) || (s.present.v && !s.v);
      if (unread)
        return {
          status: 'unknown',
          detail: 'the checkpoint has scale tensors whose values were not read',
          at: d.model?.at,
        };
      return {
        status: 'not-met',
        detail:
          s.present.q || s.present.k || s.present.v
            ? 'every stored q/k/v scale is 1.0: the default equals the loaded value'
            : 'the checkpoint has no q/k/v scales: vLLM uses 1.0 either way',
        at: d.model?.at,
      };
    },
  };
}
