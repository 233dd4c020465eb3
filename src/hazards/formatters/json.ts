/**
 * JSON output: `{ findings: [...], deployments: [...] }`. Every field is plain data; conditions carry
 * name, status and detail; remedies and non-remedies carry their stable id, the change in words and
 * as structured data.
 */
import type { Located } from '../../core/located.js';
import type { Deployment } from '../../deployment/deployment.js';
import { changeText, type LaunchChange } from '../change.js';
import type { Finding } from '../finding.js';
import type { Confidence, NonRemedy, Remedy } from '../hazard.js';
import type { Suggestion } from '../suggest/suggest.js';
import { dependOnFactsLine } from './depend-on-facts.js';
import { summarizeDeployment, type DeploymentSummary } from './summary.js';

/** A remedy or non-remedy: `change` in words (as before), `edit` the structured change. */
export interface JsonChange {
  id: string;
  change: string;
  edit: LaunchChange;
  why: string;
  inferred?: boolean;
  avoidsBy?: string;
}

export interface JsonFinding {
  hazardId: string;
  alias: string;
  engines: string[];
  confidence: Confidence;
  severity: 'error' | 'warning';
  /** Some conditions are unknown and none is not met. */
  possibly: boolean;
  message: string;
  location: { file: string; line: number; column: number };
  conditions: { name: string; status: string; detail: string }[];
  remedies: JsonChange[];
  nonRemedies: JsonChange[];
  references: { title: string; url: string }[];
}

type JsonLocation = { file: string; line: number; column: number };

/** `lint --suggest`: a launch with one remedy applied, where it goes, and what else it needs. */
export interface JsonSuggestion {
  hazardId: string;
  remedyId: string;
  change: string;
  possibly: boolean;
  form: Suggestion['form'];
  location: JsonLocation;
  replaces?: Suggestion['replaces'];
  text: string;
  env: { set: Record<string, string>; unset: { name: string; location?: JsonLocation }[] };
  instructions: { message: string; location?: JsonLocation }[];
}

export interface JsonReport {
  findings: JsonFinding[];
  deployments: DeploymentSummary[];
  /** With --suggest only. */
  suggestions?: JsonSuggestion[];
  /**
   * Hazards that only facts not given could make apply (no distinguishing feature turned on): not
   * findings. `summary` is the text report's line; each entry has the finding's shape. Absent when
   * there are none, and always with --possible (which lists them under `findings`).
   */
  dependOnFacts?: { summary: string; hazards: JsonFinding[] };
  /** Remarks about whole input files (e.g. one that holds no launch); absent when there are none. */
  notes?: { message: string; location?: { file: string; line: number; column: number } }[];
}

function jsonSuggestion(s: Suggestion): JsonSuggestion {
  const { file, line, column } = s.location;
  return {
    hazardId: s.hazardId,
    remedyId: s.remedyId,
    change: s.change,
    possibly: s.possibly,
    form: s.form,
    location: { file, line, column },
    ...(s.replaces ? { replaces: s.replaces } : {}),
    text: s.text,
    env: {
      set: s.env.set,
      unset: s.env.unset.map((u) => ({ name: u.value, ...(u.at ? { location: u.at } : {}) })),
    },
    instructions: s.instructions.map((i) => ({ message: i.value, ...(i.at ? { location: i.at } : {}) })),
  };
}

export function toJsonReport(
  findings: Finding[],
  deployments: Deployment[],
  fileNotes: Located<string>[] = [],
  suggestions?: Suggestion[],
  opts: { dependOnFacts?: readonly Finding[] } = {},
): JsonReport {
  const pending = opts.dependOnFacts ?? [];
  const line = dependOnFactsLine(pending);
  return {
    ...(fileNotes.length ? { notes: fileNotes.map((n) => ({ message: n.value, location: n.at })) } : {}),
    findings: findings.map(jsonFinding),
    ...(line ? { dependOnFacts: { summary: line, hazards: pending.map(jsonFinding) } } : {}),
    deployments: deployments.map(summarizeDeployment),
    ...(suggestions ? { suggestions: suggestions.map(jsonSuggestion) } : {}),
  };
}

function jsonFinding(f: Finding): JsonFinding {
  return {
    hazardId: f.hazard.id,
    alias: f.hazard.alias,
    engines: [...f.hazard.engines],
    confidence: f.hazard.confidence,
    severity: f.severity,
    possibly: f.possibly,
    message: f.message,
    location: { file: f.location.file, line: f.location.line, column: f.location.column },
    conditions: f.conditions.map((c) => ({ name: c.name, status: c.status, detail: c.detail })),
    remedies: f.hazard.remedies.map(jsonChange),
    nonRemedies: f.hazard.nonRemedies.map(jsonChange),
    references: f.hazard.references.map((r) => ({ title: r.title, url: r.url })),
  };
}

export function jsonChange(r: Remedy | NonRemedy): JsonChange {
  return {
    id: r.id,
    change: changeText(r),
    edit: r.change,
    why: r.why,
    ...('inferred' in r && r.inferred ? { inferred: true } : {}),
    ...('avoidsBy' in r && r.avoidsBy ? { avoidsBy: r.avoidsBy } : {}),
  };
}

export function formatJson(
  findings: Finding[],
  deployments: Deployment[],
  fileNotes: Located<string>[] = [],
  suggestions?: Suggestion[],
  opts: { dependOnFacts?: readonly Finding[] } = {},
): string {
  return JSON.stringify(toJsonReport(findings, deployments, fileNotes, suggestions, opts), null, 2) + '\n';
}
