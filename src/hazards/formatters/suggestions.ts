/**
 * `lint --suggest` in text: one block per remedy of each finding — where, which hazard and remedy,
 * the region it replaces, the rewritten launch indented below, and what else it needs.
 *   examples/seed-b200/serve.sh:9:6  FL001 fp8-query  drop attention_config.… (…)
 *     replace 9:6–13:120 with:
 *       vllm serve …
 */
import pc from 'picocolors';
import type { SourceLocation } from '../../core/errors.js';
import type { Suggestion } from '../suggest/suggest.js';

const where = (at: SourceLocation | undefined) => (at ? `${at.file}:${at.line}:${at.column}` : '');

export function formatSuggestionsText(suggestions: readonly Suggestion[], opts: { color: boolean }): string {
  const c = pc.createColors(opts.color);
  if (suggestions.length === 0) return '';
  const out: string[] = [c.bold('Suggested launches (each one alone clears its hazard):'), ''];
  for (const s of suggestions) {
    const possibly = s.possibly ? c.dim(' (for a possible finding)') : '';
    out.push(
      `${c.underline(where(s.location))}  ${c.bold(s.hazardId)} ${c.green(s.remedyId)}  ${s.change}${possibly}`,
    );
    const r = s.replaces;
    const form = s.form === 'yaml-list' ? 'the list items' : 'the launch';
    out.push(
      r
        ? `    replace ${r.start.line}:${r.start.column}–${r.end.line}:${r.end.column} (${form}) with:`
        : `    ${form} becomes (written as a shell command):`,
    );
    for (const line of s.text.split('\n')) out.push(`      ${line}`);
    for (const i of s.instructions)
      out.push(`    ${c.cyan('also:')} ${i.value}${i.at ? ` (${where(i.at)})` : ''}`);
    out.push('');
  }
  return out.join('\n') + '\n';
}
