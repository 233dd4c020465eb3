/**
 * JSON output: `{ findings: [...], deployments: [...] }`, the shape issue #2 specifies. Every
 * field is plain data; conditions carry name, status and detail.
 */
import type { Located } from '../../core/located.js';
import type { Deployment } from '../../deployment/deployment.js';
import type { Finding } from '../finding.js';
import { summarizeDeployment, type DeploymentSummary } from './summary.js';

export interface JsonFinding {
  hazardId: string;
  alias: string;
  severity: 'error' | 'warning';
  message: string;
  location: { file: string; line: number; column: number };
  conditions: { name: string; status: string; detail: string }[];
  remedies: { change: string; why: string }[];
  nonRemedies: { change: string; why: string }[];
  references: { title: string; url: string }[];
}

export interface JsonReport {
  findings: JsonFinding[];
  deployments: DeploymentSummary[];
  /** Remarks about whole input files (e.g. one that holds no vLLM launch); absent when there are none. */
  notes?: { message: string; location?: { file: string; line: number; column: number } }[];
}

export function toJsonReport(
  findings: Finding[],
  deployments: Deployment[],
  fileNotes: Located<string>[] = [],
): JsonReport {
  return {
    ...(fileNotes.length ? { notes: fileNotes.map((n) => ({ message: n.value, location: n.at })) } : {}),
    findings: findings.map((f) => ({
      hazardId: f.hazard.id,
      alias: f.hazard.alias,
      severity: f.severity,
      message: f.message,
      location: { file: f.location.file, line: f.location.line, column: f.location.column },
      conditions: f.conditions.map((c) => ({ name: c.name, status: c.status, detail: c.detail })),
      remedies: f.hazard.remedies.map((r) => ({ change: r.change, why: r.why })),
      nonRemedies: f.hazard.nonRemedies.map((r) => ({ change: r.change, why: r.why })),
      references: f.hazard.references.map((r) => ({ title: r.title, url: r.url })),
    })),
    deployments: deployments.map(summarizeDeployment),
  };
}

export function formatJson(
  findings: Finding[],
  deployments: Deployment[],
  fileNotes: Located<string>[] = [],
): string {
  return JSON.stringify(toJsonReport(findings, deployments, fileNotes), null, 2) + '\n';
}
