/**
 * A hazard's documentation page, rendered from its data alone, so `lint --explain` works from an
 * installed dist/ and docs/hazards/FLnnn.md can be checked equal to it (scripts/gen-hazard-docs.ts).
 * Layout after ShellCheck's wiki pages: Problem (and its mechanism), Conditions (and their limits),
 * Example (a failing and a clean launch), Fix, Not a fix, References.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { changeText } from './change.js';
import type { ExampleLaunch } from './examples/example-launch.js';
import { modelPreset } from './examples/models.js';
import type { Hazard, NonRemedy, Remedy } from './hazard.js';
import { hazards } from './index.js';

const confidenceText = {
  confirmed: 'confirmed (fixed upstream, or filed/acknowledged by the project’s maintainers)',
  reproduced:
    'reproduced (a public standalone reproduction with controls, or a one-factor-off attribution; not yet fixed or acknowledged upstream)',
  reported:
    'reported (user reports with reproductions; no maintainer confirmation): lint reports it as a warning',
} as const;

const engineNames = { vllm: 'vLLM', sglang: 'SGLang', 'llama.cpp': 'llama.cpp (llama-server)', ollama: 'Ollama' } as const;

export function hazardDocFileName(h: Hazard): string {
  return `${h.id}.md`;
}

function facts(x: ExampleLaunch): string {
  const parts = [
    x.gpu && `GPU ${x.gpu}`,
    x.model && `model ${modelPreset(x.model)?.label ?? x.model}`,
    x.vllm && `vLLM ${x.vllm}`,
    x.flashinfer && `flashinfer-python ${x.flashinfer}`,
  ].filter(Boolean);
  return parts.length ? parts.join(' · ') : 'no GPU, model config or versions given';
}

function exampleSection(h: Hazard): string[] {
  const { failing, clean } = h.examples;
  const possibly = failing.possibly
    ? ' Even this launch is only *possibly* affected: the record leaves a condition unknown (see Conditions).'
    : '';
  return [
    '## Example',
    '',
    `A launch that fires ${h.id} (${facts(failing)}):`,
    '',
    '```sh',
    failing.command,
    '```',
    '',
    `The finding points at \`${failing.points}\`.${possibly}`,
    '',
    `A launch that does not (${facts(clean)}):`,
    '',
    '```sh',
    clean.command,
    '```',
  ];
}

function changeLine(r: Remedy | NonRemedy): string {
  const inferred = 'inferred' in r && r.inferred ? ' *(inferred, not a reported workaround)*' : '';
  const avoids =
    'avoidsBy' in r && r.avoidsBy
      ? ` (lint stops reporting it only because \`${r.avoidsBy}\` no longer holds)`
      : '';
  return `- **${changeText(r)}** (\`${r.id}\`) — ${r.why}${inferred}${avoids}`;
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
  );
  if (h.confidence === 'reported')
    push(
      '> **Reported, not confirmed.** The public record has user reports but no maintainer confirmation or merged fix, so lint reports this hazard as a warning.',
      '',
    );
  push(
    '| | |',
    '|---|---|',
    `| Engines | ${h.engines.map((e) => engineNames[e]).join(', ')} |`,
    `| Severity | ${h.severity} |`,
    `| Confidence | ${confidenceText[h.confidence]} |`,
  );
  if (h.confidenceReason) push(`| Evidence | ${h.confidenceReason} |`);
  if (h.affected.vllm) push(`| Affected vLLM | ${h.affected.vllm} |`);
  if (h.affected.flashinfer) push(`| Affected FlashInfer | ${h.affected.flashinfer} |`);
  if (h.affected.sglang) push(`| Affected SGLang | ${h.affected.sglang} |`);
  if (h.affected.llamaCpp) push(`| Affected llama.cpp | ${h.affected.llamaCpp} |`);
  if (h.affected.ollama) push(`| Affected Ollama | ${h.affected.ollama} |`);
  push('', '## Problem', '', h.docs.problem, '', '### Mechanism', '', h.mechanism, '', '## Conditions', '');
  push('All must hold. lint reports each one as met, not met, or unknown (a missing fact is never guessed);');
  push('when some are unknown and none is not met, the finding is a warning: "possibly affected".', '');
  h.conditions.forEach((c, i) => push(`${i + 1}. \`${c.name}\` — ${c.description}`));
  if (h.docs.exceptions) push('', '### Limits', '', h.docs.exceptions);
  push('', ...exampleSection(h));
  push(
    '',
    '## Fix',
    '',
    'Each one alone clears the hazard: a table test applies it to the failing example and lints the result.',
    '',
  );
  for (const r of h.remedies) push(changeLine(r));
  push('', '## Not a fix', '');
  if (h.nonRemedies.length === 0) push('None on the public record.');
  for (const r of h.nonRemedies) push(changeLine(r));
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
