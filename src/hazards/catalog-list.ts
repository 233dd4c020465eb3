/**
 * `lint --catalog`: every hazard lint checks, as a table (text) or data (`--format json`): id, alias,
 * engines, severity, confidence, the GPU family its conditions name, and the version bounds its
 * version conditions check. The catalog has a version of its own (CATALOG_VERSION, one CHANGELOG.md
 * section each), so a team can tell which hazards a given faultline knows.
 */
import type { AffectedVersions, Hazard } from './hazard.js';
import type { VersionBounds } from './conditions/versions.js';

/** Bumped whenever hazards are added, removed, or change what they report; see CHANGELOG.md. */
export const CATALOG_VERSION = 6;

export interface CatalogEntry {
  id: string;
  alias: string;
  engines: string[];
  severity: string;
  confidence: string;
  /** For a reproduced hazard: the reproduction or attribution that makes it one. */
  confidenceReason?: string;
  summary: string;
  /** GPU conditions by name (`gpu-sm100-family`, `gpu-blackwell`); empty when any GPU can be affected. */
  gpu: string[];
  /** Per package, the bounds as data (absent keys: not on record). */
  versions: Partial<Record<VersionBounds['pkg'], Omit<VersionBounds, 'pkg'>>>;
  /** The bounds in words, as the docs page shows them. */
  affected: AffectedVersions;
  remedies: string[];
  nonRemedies: string[];
}

export function catalogEntry(h: Hazard): CatalogEntry {
  const versions: CatalogEntry['versions'] = {};
  for (const c of h.conditions)
    if (c.versionBounds) {
      const { pkg, ...rest } = c.versionBounds;
      versions[pkg] = rest;
    }
  return {
    id: h.id,
    alias: h.alias,
    engines: [...h.engines],
    severity: h.severity,
    confidence: h.confidence,
    ...(h.confidenceReason ? { confidenceReason: h.confidenceReason } : {}),
    summary: h.summary,
    gpu: h.conditions.filter((c) => c.name.startsWith('gpu-')).map((c) => c.name),
    versions,
    affected: { ...h.affected },
    remedies: h.remedies.map((r) => r.id),
    nonRemedies: h.nonRemedies.map((r) => r.id),
  };
}

export function formatCatalogJson(list: readonly Hazard[]): string {
  return JSON.stringify({ catalogVersion: CATALOG_VERSION, hazards: list.map(catalogEntry) }, null, 2) + '\n';
}

/** The bounds of one package in a few words: "< 0.6.18rc2", "fixed by PR #3849", "no fix". */
function boundsText(b: Omit<VersionBounds, 'pkg'> | undefined): string {
  if (!b) return '—';
  const parts: string[] = [];
  if (b.introduced) parts.push(`≥ ${b.introduced}`);
  if (b.fixed) parts.push(`< ${b.fixed}`);
  else if (b.containsFixFrom) parts.push(`< ${b.containsFixFrom.version} (fix ${b.fixedBy ?? 'merged'})`);
  else if (b.fixedBy)
    parts.push(
      `${/^PR #\d+/.exec(b.fixedBy)?.[0] ? `fixed by ${/^PR #\d+/.exec(b.fixedBy)?.[0]}` : 'fixed'}, release unknown`,
    );
  else if (b.onlyByPullRequest) parts.push('by pull request only');
  else parts.push('no fix');
  if (b.firstReported && !b.introduced) parts.unshift(`reported from ${b.firstReported}`);
  return parts.join(', ');
}

export function formatCatalogText(list: readonly Hazard[]): string {
  const rows = list.map((h) => {
    const e = catalogEntry(h);
    return [
      e.id,
      e.alias,
      e.engines.join('+'),
      e.severity,
      e.confidence,
      e.gpu.map((g) => g.replace(/^gpu-/, '')).join(', ') || 'any',
      boundsText(e.versions.vllm),
      boundsText(e.versions.flashinfer),
      boundsText(e.versions.sglang),
    ];
  });
  const header = ['id', 'alias', 'engines', 'severity', 'confidence', 'gpu', 'vllm', 'flashinfer', 'sglang'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) =>
    r
      .map((x, i) => x.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return (
    [
      `faultline hazard catalog ${CATALOG_VERSION}: ${list.length} hazards`,
      '',
      line(header),
      ...rows.map(line),
    ].join('\n') +
    '\n\nfaultline lint --explain FLnnn prints a hazard’s page (problem, conditions, examples, fixes).\n'
  );
}
