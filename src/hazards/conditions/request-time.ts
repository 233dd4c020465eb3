/**
 * Facts that only requests decide: whether they ask for logprobs, prompt logprobs, images with
 * particular decode options, the same adapter name under a reloaded adapter. A launch can never show
 * them, so such a condition is always unknown — the finding is "possibly affected" and says what to
 * check in the traffic — unless a launch setting rules the feature out (`excludedBy`).
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';

export function requestsUse(opts: {
  name: string;
  /** What requests must do, for the condition's description ("requests ask for prompt_logprobs"). */
  what: string;
  /** A launch setting that makes it impossible, with the sentence that says so. */
  excludedBy?: (d: Deployment) => ConditionResult | undefined;
}): Condition {
  return {
    name: opts.name,
    role: 'bound',
    description: `${opts.what} (a request-time choice the launch cannot show)`,
    check(d: Deployment): ConditionResult {
      const excluded = opts.excludedBy?.(d);
      if (excluded) return excluded;
      return {
        status: 'unknown',
        detail: `whether ${opts.what} depends on the traffic, not on the launch`,
      };
    },
  };
}
