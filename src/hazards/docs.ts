/**
 * A hazard's documentation page, rendered from its data alone, so `lint --explain` works from an
 * installed dist/ and docs/hazards/FLnnn.md can be checked equal to it (scripts/gen-hazard-docs.ts).
 * Layout after ShellCheck's wiki pages: Problem, then what to do and why, then the exceptions.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Hazard } from './hazard.js';
import { hazards } from './index.js';

const confidenceText = {
  confirmed: 'confirmed (fixed upstream, or filed/acknowledged by the project’s maintainers)',
  reported: 'reported (user reports with reproductions; no maintainer root cause)',
} as const;

export function hazardDocFileName(h: Hazard): string {
  return `${h.id}.md`;
}

export function renderHazardMarkdown(h: Hazard): string {
  const lines: string[] = [];
  const push = (...xs: string[]) => lines.push(...xs);
  push(
    `<!-- Generated from the hazard's data (src/hazards/catalog/${h.id}-${h.alias}.ts) by scripts/gen-hazard-docs.ts. Edit the data, then regenerate. -->`,
    '',
    `# ${h.id} \`${h.alias}\``,
    '',
    `**${capitalize(h.summary)}.**`,
    '',
    '| | |',
    '|---|---|',
    `| Severity | ${h.severity} |`,
    `| Confidence | ${confidenceText[h.confidence]} |`,
  );
  if (h.affected.vllm) push(`| Affected vLLM | ${h.affected.vllm} |`);
  if (h.affected.flashinfer) push(`| Affected FlashInfer | ${h.affected.flashinfer} |`);
  push('', '## Problem', '', h.docs.problem, '', '## Conditions', '');
  push('All must hold. lint reports each one as met, not met, or unknown (a missing fact is never guessed);');
  push('when some are unknown and none is not met, the finding is a warning: "possibly affected".', '');
  h.conditions.forEach((c, i) => push(`${i + 1}. \`${c.name}\` — ${c.description}`));
  push('', '## Mechanism', '', h.mechanism, '', '## Remedies', '');
  push('Each one alone clears the hazard (a unit test applies it and checks).', '');
  for (const r of h.remedies) push(`- **${r.change}** — ${r.why}`);
  push('', '## Non-remedies', '');
  if (h.nonRemedies.length === 0) push('None on the public record.');
  for (const r of h.nonRemedies) push(`- **${r.change}** — ${r.why}`);
  if (h.docs.exceptions) push('', '## Exceptions and limits', '', h.docs.exceptions);
  push('', '## References', '');
  for (const r of h.references) push(`- [${r.title}](${r.url})`);
  push('');
  return lines.join('\n');
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The committed docs folder, next to src/ or dist/ alike. */
export function hazardDocsDir(): string {
  return fileURLToPath(new URL('../../docs/hazards/', import.meta.url));
}

/**
 * Where a hazard's documentation lives, as an absolute URI (SARIF's helpUri must be one).
 * FAULTLINE_DOCS_BASE_URL points it at a published copy; otherwise it is the installed file.
 */
export function hazardDocsUrl(h: Hazard, env: NodeJS.ProcessEnv = {}): string {
  const base = env.FAULTLINE_DOCS_BASE_URL;
  if (base) return `${base.replace(/\/+$/, '')}/${hazardDocFileName(h)}`;
  return pathToFileURL(hazardDocsDir() + hazardDocFileName(h)).href;
}

/** Pages in `dir` that are missing, differ from the rendering, or name no hazard. Empty = current. */
export function staleHazardDocs(dir: string, list: readonly Hazard[] = hazards): string[] {
  const problems: string[] = [];
  const expected = new Set<string>();
  for (const h of list) {
    const name = hazardDocFileName(h);
    expected.add(name);
    const path = join(dir, name);
    if (!existsSync(path)) problems.push(`${name}: missing`);
    else if (readFileSync(path, 'utf8') !== renderHazardMarkdown(h)) problems.push(`${name}: out of date`);
  }
  if (existsSync(dir))
    for (const f of readdirSync(dir))
      if (/^FL\d+\.md$/.test(f) && !expected.has(f)) problems.push(`${f}: no hazard with this id`);
  return problems;
}
