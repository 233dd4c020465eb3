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
import { changeProblems, type LaunchChange } from './change.js';
import type { VersionBounds } from './conditions/versions.js';
import { modelPreset } from './examples/models.js';
import { wordPosition, type ExampleLaunch, type HazardExamples } from './examples/example-launch.js';

export type HazardId = `FL${number}`;
export type Engine = 'vllm' | 'sglang' | 'llama.cpp' | 'ollama';
export const ENGINES: readonly Engine[] = ['vllm', 'sglang', 'llama.cpp', 'ollama'];
export type Severity = 'error' | 'warning';
/**
 * How strong the public evidence is, strongest first: `confirmed` (a merged fix, or filed or
 * acknowledged by the project's maintainers); `reproduced` (a public standalone reproduction with
 * controls, or a one-factor-off attribution that isolates the combination); `reported` (user reports only).
 */
export type Confidence = 'confirmed' | 'reproduced' | 'reported';
export const CONFIDENCES: readonly Confidence[] = ['confirmed', 'reproduced', 'reported'];

/** True when `c` is at least as strong as `floor` (confirmed ≥ reproduced ≥ reported). */
export function atLeastAsStrong(c: Confidence, floor: Confidence): boolean {
  return CONFIDENCES.indexOf(c) <= CONFIDENCES.indexOf(floor);
}
export type Status = 'met' | 'not-met' | 'unknown';

export interface ConditionResult {
  status: Status;
  /**
   * Met only because of the engine's default (nothing in the launch or the facts given turned it on):
   * true of every launch of that release, so it does not single this launch out.
   */
  byDefault?: boolean;
  /**
   * Unknown, yet about something the launch itself writes (a flag faultline's table does not know):
   * the launch still asked for it, so the finding singles this launch out like a met feature.
   */
  namedByLaunch?: boolean;
  /** One sentence of evidence: what was seen, where it came from, and why it counts. */
  detail: string;
  /** The launch fact this condition rests on (a flag, an env var, the model config …). */
  at?: SourceLocation;
}

/**
 * What a met condition says about the launch, so lint can tell a hazard the launch asked for from one
 * only unknown facts could make apply:
 * - `feature`: the launch turns something on (a KV dtype, a speculative method, a backend, a flag or
 *   an environment variable), or the model config given does (a checkpoint's KV dtype under auto);
 * - `fact`: a fact about the hardware or the model (the GPU, the architecture, the window), met only
 *   when that fact is given or read from the launch;
 * - `bound`: it narrows the hazard but holds for most launches (a version range with no fix, request-time
 *   behaviour, a serving default): never enough on its own to single a launch out.
 */
export type ConditionRole = 'feature' | 'fact' | 'bound';

export interface Condition {
  /** Short kebab-case name, stable: it appears in JSON output. */
  name: string;
  /** See ConditionRole; `feature` when absent. */
  role?: ConditionRole;
  /** What must hold, in words ("the model has sliding-window attention layers"). */
  description: string;
  check(d: Deployment): ConditionResult;
  /** For a version condition: the bounds it checks, as data (`lint --catalog` lists them). */
  versionBounds?: VersionBounds;
}

/** A remedy: one change that clears the hazard (a table test applies it to the failing example). */
export interface Remedy {
  /** Stable kebab-case id: tests, JSON output and `--suggest` key on it, never on prose. */
  id: string;
  change: LaunchChange;
  /** Why it does clear the hazard, as far as the record says. */
  why: string;
  /** Words for the change when the generated ones (describeChange) would not say it well. */
  label?: string;
  /** Not a reported workaround: deduced from the mechanism or a passing control. */
  inferred?: boolean;
}

/** A change people try that does not clear the hazard. */
export interface NonRemedy extends Omit<Remedy, 'inferred'> {
  /**
   * lint stops reporting the hazard, but only because this condition stops holding at a price the
   * `why` names (`--disable-sliding-window` caps the context to the window): not a fix.
   */
  avoidsBy?: string;
}

export interface Reference {
  title: string;
  url: string;
}

/** Version bounds as the public record states them; free text, shown in docs and output. */
export interface AffectedVersions {
  vllm?: string;
  flashinfer?: string;
  sglang?: string;
  /** llama.cpp builds (`b9333`) or release tags, and the pull requests that bound them. */
  llamaCpp?: string;
  ollama?: string;
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
  /** The serving engines whose launches it applies to. */
  engines: Engine[];
  /** 'warning' whenever confidence is 'reported'; a confirmed or reproduced hazard may be an 'error'. */
  severity: Severity;
  /** One line: the combination and its effect. Used as the finding message. */
  summary: string;
  /** How the interaction corrupts output, as far as the public record says. */
  mechanism: string;
  affected: AffectedVersions;
  /** See `Confidence`; only a confirmed or reproduced hazard may be an error. */
  confidence: Confidence;
  /**
   * Why the evidence is `reproduced`: which reproduction has which controls, or which attribution
   * varies one factor at a time (required for reproduced hazards, shown in docs and output).
   */
  confidenceReason?: string;
  /** All must be met for the hazard to apply. */
  conditions: Condition[];
  /** The condition whose location a finding points at (the flag a user would change first). */
  locateAt: string;
  remedies: Remedy[];
  nonRemedies: NonRemedy[];
  examples: HazardExamples;
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
  if (h.engines.length === 0 || h.engines.some((e) => !ENGINES.includes(e)))
    problems.push(`engines must name some of ${ENGINES.join(', ')}`);
  if (!CONFIDENCES.includes(h.confidence))
    problems.push(`confidence "${h.confidence}" is not one of ${CONFIDENCES.join(', ')}`);
  if (h.confidence === 'reported' && h.severity !== 'warning')
    problems.push('a reported (unconfirmed) hazard is a warning');
  if (h.confidence === 'reproduced' && !h.confidenceReason?.trim())
    problems.push('a reproduced hazard names its reproduction or attribution in confidenceReason');
  if (h.conditions.length === 0) problems.push('no conditions');
  const names = h.conditions.map((c) => c.name);
  if (new Set(names).size !== names.length) problems.push('duplicate condition names');
  for (const n of names) if (!aliasPattern.test(n)) problems.push(`condition name "${n}" is not kebab-case`);
  if (!names.includes(h.locateAt)) problems.push(`locateAt "${h.locateAt}" names no condition`);
  if (h.remedies.length === 0) problems.push('no remedies');
  problems.push(...changeListProblems(h, names));
  problems.push(...exampleProblems(h.examples));
  if (h.references.length === 0) problems.push('no references');
  for (const r of h.references)
    if (!/^https:\/\//.test(r.url)) problems.push(`reference URL "${r.url}" is not https`);
  if (problems.length) throw new Error(`hazard ${h.id}: ${problems.join('; ')}`);
  return Object.freeze(h);
}

function changeListProblems(h: Hazard, conditionNames: string[]): string[] {
  const problems: string[] = [];
  const ids = [...h.remedies, ...h.nonRemedies].map((r) => r.id);
  if (new Set(ids).size !== ids.length) problems.push('duplicate remedy / non-remedy ids');
  for (const r of [...h.remedies, ...h.nonRemedies]) {
    if (!aliasPattern.test(r.id)) problems.push(`remedy id "${r.id}" is not kebab-case`);
    for (const p of changeProblems(r.change)) problems.push(`${r.id}: ${p}`);
  }
  for (const r of h.nonRemedies)
    if (r.avoidsBy && !conditionNames.includes(r.avoidsBy))
      problems.push(`${r.id}: avoidsBy "${r.avoidsBy}" names no condition`);
  return problems;
}

function exampleProblems(e: HazardExamples): string[] {
  const problems: string[] = [];
  if (!wordPosition(e.failing.command, e.failing.points))
    problems.push(`the failing example has no word "${e.failing.points}" to point at`);
  for (const x of [e.failing, e.clean] as ExampleLaunch[])
    if (x.model && !modelPreset(x.model)) problems.push(`example model "${x.model}" is no model preset`);
  return problems;
}
