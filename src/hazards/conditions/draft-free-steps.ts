/**
 * Speculative proposers that can return zero drafts on some steps. An n-gram / prompt-lookup
 * proposer drafts only when the context contains a match, so some decode steps carry no drafts;
 * MTP and EAGLE heads draft every step (research/interaction-bugs.md B6). Other proposers are not
 * in the record either way, so they are unknown rather than assumed to behave like one or the other.
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../hazard.js';
import { resolveSpeculative } from './speculative.js';

/** Methods the record says draft on every step. */
const DRAFTS_EVERY_STEP = new Set(['mtp', 'eagle', 'eagle3']);

export function draftFreeStepsProposer(): Condition {
  return {
    name: 'draft-free-steps-proposer',
    description:
      'speculative decoding uses a proposer that can return zero drafts on some steps (n-gram / prompt lookup)',
    check(d: Deployment): ConditionResult {
      const s = resolveSpeculative(d);
      if (!s) return { status: 'not-met', detail: 'no speculative decoding configured' };
      if (!s.method)
        return {
          status: 'unknown',
          detail: `${s.spelled} names no method; vLLM infers it from the draft model, which the launch does not show`,
          at: s.at,
        };
      if (s.method === 'ngram')
        return {
          status: 'met',
          detail:
            'method ngram: the n-gram proposer drafts only when the context has a match, so some steps carry no drafts',
          at: s.at,
        };
      if (DRAFTS_EVERY_STEP.has(s.method))
        return {
          status: 'not-met',
          detail: `method ${s.method} drafts on every step, so no draft-free step follows an accepted one`,
          at: s.at,
        };
      return {
        status: 'unknown',
        detail: `method ${s.method} is not in the reports (n-gram there, MTP/EAGLE clean); whether it leaves steps without drafts is not established`,
        at: s.at,
      };
    },
  };
}
