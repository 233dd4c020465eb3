/**
 * The attribution report for people: the matrix (one row per launch, levels that differ from
 * the reference spelled out, reference levels as "·"), then the minimal failing interactions
 * with their verified remedies, the factors not involved, launch failures, and the count of
 * launches against exhaustive testing.
 */
import type { AttributionReport } from './attribution.js';
import { outcomeLabel } from './executor.js';

const pct = (x: number | undefined): string => (x === undefined ? '' : `${(x * 100).toFixed(x > 0 && x < 0.1 ? 1 : 0)}%`);
const pairs = (levels: Record<string, string>): string =>
  Object.entries(levels)
    .map(([f, l]) => `${f}=${l}`)
    .join(' + ');

function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, j) => Math.max(...rows.map((r) => r[j].length)));
  return rows.map((r) => r.map((cell, j) => cell.padEnd(widths[j])).join('  ').trimEnd());
}

/** A cell's phase as the report and the progress lines both name it ("recheck c003" for a second launch). */
export function phaseLabel(c: { phase: string; recheckOf?: string }): string {
  return c.recheckOf ? `recheck ${c.recheckOf}` : c.phase;
}

export function formatAttributionText(report: AttributionReport): string {
  const out: string[] = [];
  const factors = report.factors;
  out.push(
    `faultline matrix — ${report.plan.file}: ${factors.length} factors, strength ${report.plan.strength}, ${report.plan.confirm > 0 ? `a PASS re-probed ${report.plan.confirm}× before it is believed` : 'a PASS believed at once (confirm: 0)'}`,
    '',
    `Reference: ${factors.map((f) => `${f.name}=${f.reference}`).join(' ')}`,
    '',
  );
  const header = ['cell', 'phase', ...factors.map((f) => f.name), 'verdict', 'corrupt'];
  const rows = report.cells.map((c) => [
    c.id,
    phaseLabel(c),
    ...factors.map((f) => (c.levels[f.name] === f.reference ? '·' : c.levels[f.name])),
    outcomeLabel(c.outcome),
    c.outcome === 'corrupt' ? pct(c.corruptRate) : '',
  ]);
  out.push(...table([header, ...rows]), '');

  if (report.interactions.length === 0) {
    out.push(
      report.verdict === 'clean'
        ? 'No corruption: every launch passed, and every valid t-way combination was covered by a launch with a verdict.'
        : 'No minimal failing interaction was localized.',
    );
  }
  report.interactions.forEach((it, i) => {
    const title = `Minimal failing interaction ${i + 1}`;
    if (it.status === 'inconclusive') {
      out.push(`${title}: INCONCLUSIVE (from ${it.source}, ${it.method}): ${it.reason ?? 'no reason recorded'}`);
      return;
    }
    out.push(`${title} (verified, ${it.method} from ${it.source}):`, `  ${pairs(it.interaction)}`);
    if (Object.keys(it.forced).length) out.push(`  (the constraints force ${pairs(it.forced)} along with it)`);
    out.push(`  fails on the reference background: ${it.minimalCell ?? '?'}`);
    if (it.context) out.push(`  with every other factor changed: ${outcomeLabel(it.context.outcome)} (${it.context.cell})`);
    out.push('  remedies, each a single change verified by a run that passed:');
    for (const r of it.remedies)
      out.push(
        `    - ${Object.entries(r.change).map(([f, l]) => `${f} → ${l}`).join(', ')}   (${r.cell} PASS${r.recheck ? `, again in ${r.recheck}` : ''})`,
      );
    if (it.remedies.length === 0) out.push('    (none verified)');
  });
  if (report.notInvolved.length) {
    out.push('', 'Not involved (not part of any interaction found):');
    for (const n of report.notInvolved) {
      const all = report.factors.find((f) => f.name === n.factor)?.levels.length ?? 0;
      const seen = `corruption seen with ${n.factor}=${n.corruptWith.join(` and with ${n.factor}=`)}`;
      out.push(`  ${n.factor}: ${seen}${n.corruptWith.length < all ? ' (no other level of it ran corrupt)' : ''}`);
    }
  }
  const explained = Object.keys(report.explained);
  if (explained.length) out.push('', `Other failing launches explained by these interactions: ${explained.join(', ')}`);
  if (report.unexamined.length)
    out.push('', `Failing launches NOT examined (localize.max_faults reached): ${report.unexamined.join(', ')}`);
  if (report.launchFailures.length) {
    out.push('', 'Launch failures (no verdict; these cells say nothing about corruption):');
    for (const lf of report.launchFailures) out.push(`  ${pairs(lf.levels)}: ${lf.cells.join(', ')}`);
  }
  const l = report.launches;
  out.push(
    '',
    `Launches: ${l.used} used (reference ${l.reference}, covering array ${l.coveringRows} rows)` +
      (l.reusedFromJournal ? `, ${l.reusedFromJournal} reused from the journal` : '') +
      ` — exhaustive: ${l.exhaustive}; one-factor-at-a-time: ${l.oneFactorAtATime} (blind to interactions)`,
  );
  out.push(
    report.coverage.uncoveredByVerdicts === 0
      ? `Coverage: all ${report.coverage.validTuples} valid ${report.coverage.strength}-way combinations ran with a verdict.`
      : `Coverage: ${report.coverage.uncoveredByVerdicts} of ${report.coverage.validTuples} valid ${report.coverage.strength}-way combinations ran only in launches without a verdict.`,
  );
  out.push(`Verdict: ${report.verdict}`);
  return `${out.join('\n')}\n`;
}

export function formatAttributionJson(report: AttributionReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
