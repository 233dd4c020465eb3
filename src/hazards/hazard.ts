/**
 * A hazard is a known silent-corruption interaction, declared as data first and predicate last
 * (the shape of an ESLint rule's `meta` + `create`, with markdownlint's code + alias and
 * ShellCheck's Problem / Fix / Rationale / Exceptions page per code).
 *
 * The predicate is a list of conditions over a Deployment. Each condition answers met / not-met /
 * unknown with a sentence of evidence, so a finding can show *why* it fired and a missing fact is
 * reported as unknown rather than guessed.
 */
import type { SourceLocation } from '../core/errors.js';
import type { Deployment } from '../deployment/deployment.js';

export type HazardId = `FL${number}`;
export type Severity = 'error' | 'warning';
export type Status = 'met' | 'not-met' | 'unknown';

export interface ConditionResult {
  status: Status;
  /** One sentence of evidence: what was seen, where it came from, and why it counts. */
  detail: string;
  /** The launch fact this condition rests on (a flag, an env var, the model config …). */
  at?: SourceLocation;
}

export interface Condition {
  /** Short kebab-case name, stable: it appears in JSON output. */
  name: string;
  /** What must hold, in words ("the model has sliding-window attention layers"). */
  description: string;
  check(d: Deployment): ConditionResult;
}

export interface Change {
  /** The launch change, as an operator would make it ("drop --speculative-config"). */
  change: string;
  /** Why it does (or does not) clear the hazard. */
  why: string;
}

export interface Reference {
  title: string;
  url: string;
}

/** Version bounds as the public record states them; free text, shown in docs and output. */
export interface AffectedVersions {
  vllm?: string;
  flashinfer?: string;
}

/** The written part of the hazard's documentation page (ShellCheck-style). */
export interface HazardDocs {
  /** What goes wrong, as the user sees it. */
  problem: string;
  /** When the hazard does not apply although it looks like it does, or what is not established. */
  exceptions?: string;
}

export interface Hazard {
  id: HazardId;
  alias: string;
  severity: Severity;
  /** One line: the combination and its effect. Used as the finding message. */
  summary: string;
  /** How the interaction corrupts output, as far as the public record says. */
  mechanism: string;
  affected: AffectedVersions;
  /** 'confirmed': fixed upstream or acknowledged by maintainers; 'reported': user reports only. */
  confidence: 'confirmed' | 'reported';
  /** All must be met for the hazard to apply. */
  conditions: Condition[];
  /** The condition whose location a finding points at (the flag a user would change first). */
  locateAt: string;
  remedies: Change[];
  nonRemedies: Change[];
  references: Reference[];
  docs: HazardDocs;
}

const idPattern = /^FL\d{3}$/;
const aliasPattern = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * Declares a hazard and checks the declaration itself, so a malformed catalog entry fails at
 * import time (and in the catalog's unit test) rather than producing odd findings later.
 */
export function defineHazard(h: Hazard): Hazard {
  const problems: string[] = [];
  if (!idPattern.test(h.id)) problems.push(`id "${h.id}" is not FLnnn`);
  if (!aliasPattern.test(h.alias)) problems.push(`alias "${h.alias}" is not kebab-case`);
  if (h.conditions.length === 0) problems.push('no conditions');
  const names = h.conditions.map((c) => c.name);
  if (new Set(names).size !== names.length) problems.push('duplicate condition names');
  for (const n of names) if (!aliasPattern.test(n)) problems.push(`condition name "${n}" is not kebab-case`);
  if (!names.includes(h.locateAt)) problems.push(`locateAt "${h.locateAt}" names no condition`);
  if (h.remedies.length === 0) problems.push('no remedies');
  if (h.references.length === 0) problems.push('no references');
  for (const r of h.references)
    if (!/^https:\/\//.test(r.url)) problems.push(`reference URL "${r.url}" is not https`);
  if (problems.length) throw new Error(`hazard ${h.id}: ${problems.join('; ')}`);
  return Object.freeze(h);
}
