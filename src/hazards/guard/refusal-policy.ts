/**
 * Which findings make `faultline guard` refuse a launch (`--refuse-on confirmed|reproduced|reported`).
 * The level names the weakest evidence that refuses: `confirmed` refuses only on confirmed hazards,
 * `reproduced` (the default) on confirmed and reproduced ones, `reported` on every hazard. At the first
 * two levels only error-severity hazards refuse (a confirmed hazard the catalog rates a warning, such
 * as an acceptance-rate drop, does not); a reported hazard is always a warning, so `reported` refuses
 * on warnings too. A "possibly affected" finding never refuses (a missing fact is not evidence), nor
 * does FL000: a flag faultline does not know is no corruption.
 */
import { UserError } from '../../core/errors.js';
import type { Finding } from '../finding.js';
import { atLeastAsStrong, CONFIDENCES, type Confidence } from '../hazard.js';

export const DEFAULT_REFUSE_ON: Confidence = 'reproduced';

/** The hazard that reports flags faultline cannot read, never a reason to refuse. */
const FLAG_NOT_ACCEPTED = 'FL000';

export function parseRefuseOn(value: string): Confidence {
  const v = value.toLowerCase();
  const level = CONFIDENCES.find((c) => c === v);
  if (level) return level;
  throw new UserError(`--refuse-on ${value}: not a confidence level`, {
    code: 'E_USAGE',
    hint: `use one of: ${CONFIDENCES.join(', ')} (default ${DEFAULT_REFUSE_ON})`,
  });
}

export function refuses(f: Finding, level: Confidence, allowed: ReadonlySet<string>): boolean {
  if (f.possibly || allowed.has(f.hazard.id) || f.hazard.id === FLAG_NOT_ACCEPTED) return false;
  if (!atLeastAsStrong(f.hazard.confidence, level)) return false;
  return f.severity === 'error' || level === 'reported';
}
