/**
 * "Attention runs on backend X", for hazards tied to one backend that vLLM does not pick on its own
 * in the reported setups (TRITON_ATTN, CUTLASS_MLA …). An explicit backend decides it; with none
 * given the hazard says what vLLM's automatic choice means for it (`whenUnset`), and without such a
 * rule the answer is unknown — vLLM's choice depends on GPU, dtype and model in ways the record
 * does not pin down.
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { chosenAttentionBackend } from './attention-backend.js';

export function attentionBackendIs(opts: {
  name: string;
  backends: string[];
  whenUnset?: (d: Deployment) => ConditionResult;
}): Condition {
  const names = opts.backends.join(' or ');
  return {
    name: opts.name,
    description: `attention runs on ${names}`,
    check(d: Deployment): ConditionResult {
      const choice = chosenAttentionBackend(d);
      if (choice.uncertain) return { status: 'unknown', detail: choice.uncertain };
      const b = choice.explicit;
      if (b)
        return opts.backends.includes(b.name)
          ? { status: 'met', detail: `${b.spelled}`, at: b.at }
          : { status: 'not-met', detail: `${b.spelled}: not ${names}`, at: b.at };
      if (opts.whenUnset) return opts.whenUnset(d);
      return {
        status: 'unknown',
        detail: `no attention backend given: whether vLLM picks ${names} here is not established (set --attention-backend)`,
      };
    },
  };
}
