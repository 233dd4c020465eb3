/** `faultline lint --format json` → LintData (hazard ids and remedies for the summary). */
import { z } from 'zod';
import type { LintData } from '../data.js';

const location = z.object({ file: z.string(), line: z.number(), column: z.number() });

export const lintSchema = z.object({
  findings: z.array(
    z.object({
      hazardId: z.string(),
      alias: z.string(),
      severity: z.enum(['error', 'warning']),
      message: z.string(),
      location,
      remedies: z.array(z.object({ change: z.string(), why: z.string() })),
      references: z.array(z.object({ title: z.string(), url: z.string() })).default([]),
    }),
  ),
  deployments: z.array(z.unknown()),
  notes: z.array(z.object({ message: z.string(), location: location.optional() })).optional(),
});

export type LintJson = z.output<typeof lintSchema>;

export const LINT_HINT = 'regenerate it with `faultline lint … --format json > lint.json`';

export function looksLikeLint(v: Record<string, unknown>): boolean {
  return 'findings' in v && 'deployments' in v;
}

export function lintData(source: string, j: LintJson): LintData {
  return {
    source,
    findings: j.findings.map((f) => ({
      hazardId: f.hazardId,
      alias: f.alias,
      severity: f.severity,
      message: f.message,
      location: `${f.location.file}:${f.location.line}:${f.location.column}`,
      remedies: f.remedies,
      references: f.references,
    })),
    launches: j.deployments.length,
    notes: (j.notes ?? []).map((n) => (n.location ? `${n.location.file}:${n.location.line}:${n.location.column}: ${n.message}` : n.message)),
  };
}
