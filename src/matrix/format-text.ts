/**
 * The attribution report for people: the matrix (one row per launch, levels that differ from
 * the reference spelled out, reference levels as "·"), then the minimal failing interactions
 * with their verified remedies, the factors not involved, launch failures, and the count of
 * launches against exhaustive testing.
 */
import { describeConfirmation, type AttributionReport } from './attribution.js';
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
    `faultline matrix — ${report.plan.file}: ${factors.length} factors, strength ${report.plan.strength}, ${describeConfirmation(report.plan)}`,
    '',
    `Reference: ${factors.map((f) => `${f.name}=${f.reference}`).join(' ')}`,
    '',
  );
  // the workload suite names what its corrupt requests shared: a column only when a cell has one
  const named = report.cells.some((c) => c.features?.length);
  const header = ['cell', 'phase', ...factors.map((f) => f.name), 'verdict', 'corrupt', ...(named ? ['every corrupt request had'] : [])];
  const rows = report.cells.map((c) => [
    c.id,
    phaseLabel(c),
    ...factors.map((f) => (c.levels[f.name] === f.reference ? '·' : c.levels[f.name])),
    outcomeLabel(c.outcome),
    c.outcome === 'corrupt' ? pct(c.corruptRate) : '',
    ...(named ? [c.features?.join(', ') ?? ''] : []),
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
    const sets = Object.entries(it.levels ?? {});
    if (sets.some(([, l]) => l.failing.length > 1))
      out.push(`  every failing level: ${sets.map(([f, l]) => `${f} ∈ {${l.failing.join(', ')}}`).join(' + ')}`);
    if (sets.length) out.push(`  safe levels: ${sets.map(([f, l]) => `${f} ∈ {${l.safe.join(', ')}}`).join('; ')}`);
    const open = sets.flatMap(([f, l]) => [...l.unknown.map((v) => `${f}=${v} (no verdict)`), ...l.impossible.map((v) => `${f}=${v} (no valid configuration)`)]);
    if (open.length) out.push(`  not judged: ${open.join(', ')}`);
    if (Object.keys(it.forced).length) out.push(`  (the constraints force ${pairs(it.forced)} along with it)`);
    const minimal = report.cells.find((c) => c.id === it.minimalCell);
    out.push(`  fails on the reference background: ${it.minimalCell ?? '?'}${minimal?.features?.length ? ` (every corrupt request had: ${minimal.features.join(', ')})` : ''}`);
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
    for (const lf of report.launchFailures)
      out.push(`  ${[lf.levels, ...(lf.alternatives ?? [])].map(pairs).join(' or ')}: ${lf.cells.join(', ')}`);
  }
  for (const lc of report.learnedConstraints ?? [])
    out.push(`Learned: ${pairs(lc.levels)} never launched (${lc.cells.join(', ')}); later launches avoided it.`);
  const maskers = report.maskers;
  if (maskers && maskers.declared.length + maskers.learned.length > 0)
    out.push(
      '',
      `Maskers (a PASS with one present tests only the combinations holding it): ${[
        ...maskers.declared.map((m) => Object.entries(m).map(([f, l]) => `${f}=${l.join('|')}`).join(' + ')),
        ...maskers.learned.map((m) => `${pairs(m)} (learned: the launches holding interaction and it passed)`),
      ].join('; ')}`,
    );
  const l = report.launches;
  out.push(
    '',
    `Launches: ${l.used} used (reference ${l.reference}, covering array ${l.coveringRows} rows)` +
      (l.reusedFromJournal ? `, ${l.reusedFromJournal} reused from the journal` : '') +
      ` — exhaustive: ${l.exhaustive}; one-factor-at-a-time: ${l.oneFactorAtATime} (blind to interactions)`,
  );
  out.push(...coverageLines(report.coverage));
  out.push(`Verdict: ${report.verdict}`);
  return `${out.join('\n')}\n`;
}

const STOP_TEXT: Record<string, string> = {
  'after-found': 'the run stopped at the first interaction found (coverage.after_found: stop; set it to cover to test them)',
  'rounds-exhausted': 'their launches gave no verdict, or masked them, in every covering round (coverage.rounds)',
  'nothing-launchable': 'no launch the constraints and the learned launch failures allow can hold them',
};

function coverageLines(c: AttributionReport['coverage']): string[] {
  const t = `${c.strength}-way`;
  const untestable = c.untestable?.count ?? 0;
  if (c.uncoveredByVerdicts === 0 && untestable === 0) return [`Coverage: all ${c.validTuples} valid ${t} combinations were tested by launches with a verdict.`];
  const out = [`Coverage: ${c.tested ?? c.validTuples - c.uncoveredByVerdicts - untestable} of ${c.validTuples} valid ${t} combinations tested by launches with a verdict.`];
  for (const u of c.untestable?.byCause ?? []) out.push(`  untestable: ${u.count}, because ${u.cause.replace(/^learned: /, '')}`);
  if (c.uncoveredByVerdicts > 0) {
    out.push(`  untested: ${c.uncoveredByVerdicts}${c.stoppedBy && STOP_TEXT[c.stoppedBy] ? `: ${STOP_TEXT[c.stoppedBy]}` : ''}`);
    const ex = c.untested?.examples ?? [];
    if (ex.length) out.push(`  e.g. ${ex.slice(0, 3).map(pairs).join('; ')}`);
  }
  return out;
}

export function formatAttributionJson(report: AttributionReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
