/**
 * SARIF 2.1.0 output: one run, the whole catalog as rules (helpUri → the hazard's page), one result
 * per finding with a physical location and a partial fingerprint that survives line moves (hazard,
 * file, manifest object and model — not the line), so code-scanning tools track a finding across edits.
 * With --suggest, each remedy that rewrites the launch in place is a SARIF fix (a region and its new text).
 * A hazard that only facts not given could make apply is a result of its own level: `none`, kind `open`
 * (SARIF's "could not be determined"), so code scanning and the Action's gate never count it as a problem.
 */
import { createHash } from 'node:crypto';
import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Fix, Log, ReportingDescriptor, Result } from 'sarif';
import { VERSION } from '../../core/version.js';
import { changeText } from '../change.js';
import { hazardDocsUrl, renderHazardMarkdown } from '../docs.js';
import type { Finding } from '../finding.js';
import type { Hazard } from '../hazard.js';
import { hazards as catalog } from '../index.js';
import type { Suggestion } from '../suggest/suggest.js';
import { dependOnFactsLine } from './depend-on-facts.js';

export const SARIF_SCHEMA_URI =
  'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

function rule(h: Hazard, env: NodeJS.ProcessEnv): ReportingDescriptor {
  return {
    id: h.id,
    name: h.alias,
    shortDescription: { text: h.summary },
    fullDescription: { text: h.mechanism },
    helpUri: hazardDocsUrl(h, env),
    help: {
      text: h.remedies.map((r) => `${changeText(r)} [${r.id}]: ${r.why}`).join('\n'),
      markdown: renderHazardMarkdown(h),
    },
    defaultConfiguration: { level: h.severity },
    properties: {
      tags: ['correctness', 'silent-corruption'],
      confidence: h.confidence,
      engines: [...h.engines],
    },
  };
}

/** A file name as a SARIF artifact URI: relative paths stay relative (forward slashes), absolute become file: URIs. */
export function artifactUri(file: string): string {
  if (isAbsolute(file)) return pathToFileURL(file).href;
  return file.split(/[\\/]/).map(encodeURIComponent).join('/');
}

function fingerprint(f: Finding): string {
  const d = f.deployment;
  const key = [f.hazard.id, f.location.file, d.source.object ?? '', d.model?.value ?? ''].join('\u0000');
  return createHash('sha256').update(key).digest('hex').slice(0, 32);
}

/** SARIF fixes for the suggestions that can be placed exactly (a replaced region in a file). */
function fixes(suggestions: readonly Suggestion[]): Fix[] {
  return suggestions.flatMap((s) =>
    s.replaces && s.instructions.length === 0
      ? [
          {
            description: { text: `${s.remedyId}: ${s.change}` },
            artifactChanges: [
              {
                artifactLocation: { uri: artifactUri(s.location.file) },
                replacements: [
                  {
                    deletedRegion: {
                      startLine: s.replaces.start.line,
                      startColumn: s.replaces.start.column,
                      endLine: s.replaces.end.line,
                      endColumn: s.replaces.end.column,
                    },
                    insertedContent: { text: s.text },
                  },
                ],
              },
            ],
          },
        ]
      : [],
  );
}

function result(f: Finding, ruleIndex: number, suggestions: readonly Suggestion[] = []): Result {
  const fix = fixes(suggestions);
  return {
    ...(fix.length ? { fixes: fix } : {}),
    ruleId: f.hazard.id,
    ruleIndex,
    level: f.severity,
    message: { text: f.message },
    locations: [
      {
        physicalLocation: {
          artifactLocation: { uri: artifactUri(f.location.file) },
          region: { startLine: f.location.line, startColumn: f.location.column },
        },
      },
    ],
    partialFingerprints: { 'faultlineFinding/v1': fingerprint(f) },
    properties: {
      alias: f.hazard.alias,
      possiblyAffected: f.possibly,
      dependsOnFactsOnly: f.dependsOnFactsOnly,
      conditions: f.conditions.map((c) => ({ name: c.name, status: c.status, detail: c.detail })),
    },
  };
}

export function toSarif(
  findings: Finding[],
  opts: {
    env?: NodeJS.ProcessEnv;
    hazards?: readonly Hazard[];
    suggestions?: Suggestion[][];
    dependOnFacts?: readonly Finding[];
  } = {},
): Log {
  const pending = opts.dependOnFacts ?? [];
  const line = dependOnFactsLine(pending);
  const list = opts.hazards ?? catalog;
  const index = new Map(list.map((h, i) => [h.id, i] as const));
  return {
    $schema: SARIF_SCHEMA_URI,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'faultline',
            version: VERSION,
            semanticVersion: VERSION,
            rules: list.map((h) => rule(h, opts.env ?? {})),
          },
        },
        columnKind: 'unicodeCodePoints',
        results: [
          ...findings.map((f, k) => result(f, index.get(f.hazard.id) ?? -1, opts.suggestions?.[k])),
          ...pending.map((f) => ({
            ...result(f, index.get(f.hazard.id) ?? -1),
            level: 'none' as const,
            kind: 'open' as const,
          })),
        ],
        ...(line ? { properties: { dependOnFacts: line } } : {}),
      },
    ],
  };
}

export function formatSarif(
  findings: Finding[],
  opts: { env?: NodeJS.ProcessEnv; suggestions?: Suggestion[][]; dependOnFacts?: readonly Finding[] } = {},
): string {
  return JSON.stringify(toSarif(findings, opts), null, 2) + '\n';
}
