/**
 * Human output in the style of ESLint's stylish formatter, one block per finding:
 *   file:line:col  error  FL001 [reported, not confirmed] message  (alias)
 * followed by the conditions (✓ met) with remedies and non-remedies for a definite finding, or only the
 * unknown conditions (?) for a "possibly affected" one; then the parsers' notes, and a summary line.
 * Colours only when asked (the CLI asks on a TTY without NO_COLOR).
 */
import pc from 'picocolors';
import type { Located } from '../../core/located.js';
import { changeText } from '../change.js';
import type { Finding } from '../finding.js';
import { dependOnFactsLine } from './depend-on-facts.js';

export function formatText(
  findings: Finding[],
  opts: {
    color: boolean;
    launches: number;
    hazards: number;
    notes?: Located<string>[];
    /** Hazards only facts not given could make apply: one line, not findings. */
    dependOnFacts?: readonly Finding[];
  },
): string {
  const c = pc.createColors(opts.color);
  const out: string[] = [];
  for (const f of findings) {
    const where = `${f.location.file}:${f.location.line}:${f.location.column}`;
    const sev = f.severity === 'error' ? c.red('error') : c.yellow('warning');
    // The header stays one line: the unknown conditions' details follow as `?` lines.
    const headline = f.possibly ? `possibly affected: ${f.hazard.summary}` : f.hazard.summary;
    const reported =
      f.hazard.confidence === 'reported'
        ? `${c.yellow('[reported, not confirmed]')} `
        : f.hazard.confidence === 'reproduced'
          ? `${c.yellow('[reproduced, not yet confirmed upstream]')} `
          : '';
    out.push(
      `${c.underline(where)}  ${sev}  ${c.bold(f.hazard.id)} ${reported}${headline}  ${c.dim(`(${f.hazard.alias})`)}`,
    );
    for (const cond of f.conditions) {
      if (f.possibly && cond.status === 'met') continue;
      const mark = cond.status === 'met' ? c.green('✓') : c.yellow('?');
      out.push(`    ${mark} ${cond.name}: ${cond.detail}`);
    }
    if (f.possibly) out.push(`    ${c.dim(`${f.conditions.length - countUnknown(f)} other conditions met`)}`);
    else {
      for (const r of f.hazard.remedies)
        out.push(
          `    ${c.green('fix:')} ${changeText(r)} ${c.dim(`[${r.id}]`)} — ${r.why}${r.inferred ? ' (inferred)' : ''}`,
        );
      for (const r of f.hazard.nonRemedies)
        out.push(`    ${c.red('not a fix:')} ${changeText(r)} ${c.dim(`[${r.id}]`)} — ${r.why}`);
    }
    out.push(`    ${c.dim(`more: faultline lint --explain ${f.hazard.id}`)}`, '');
  }
  // What the parsers noticed (ignored env vars, assumed entrypoints, legacy flags): worth reading, not findings.
  const seen = new Set<string>();
  for (const n of opts.notes ?? []) {
    const where = n.at ? `${n.at.file}:${n.at.line}:${n.at.column}  ` : '';
    const line = `${where}${c.cyan('note')}  ${n.value}`;
    if (!seen.has(line)) out.push(line);
    seen.add(line);
  }
  if (seen.size) out.push('');
  const errors = findings.filter((f) => f.severity === 'error').length;
  const warnings = findings.length - errors;
  const launches = `${opts.launches} launch${opts.launches === 1 ? '' : 'es'}`;
  const pending = dependOnFactsLine(opts.dependOnFacts ?? []);
  if (findings.length === 0) {
    out.push(c.green(`✓ no known hazard in ${launches} (${opts.hazards} hazard${opts.hazards === 1 ? '' : 's'} checked)`));
    if (pending) out.push(c.dim(`  ${pending}`));
  } else {
    const n = findings.length;
    const line = `✖ ${n} problem${n === 1 ? '' : 's'} (${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}) in ${launches}`;
    out.push(errors ? c.red(c.bold(line)) : c.yellow(c.bold(line)));
    const possibly = findings.filter((f) => f.possibly).length;
    if (possibly)
      out.push(
        c.dim(
          `  ${possibly} of them only possibly apply: facts are missing (each ? line names the option that decides it: --gpu, --model-config or a version)`,
        ),
      );
    if (pending) out.push(c.dim(`  and ${pending}`));
  }
  return out.join('\n') + '\n';
}

function countUnknown(f: Finding): number {
  return f.conditions.filter((x) => x.status === 'unknown').length;
}
