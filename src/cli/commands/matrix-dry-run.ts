/**
 * `faultline matrix --dry-run`: what a run would launch first, computed exactly as the run does
 * (maximal configurations, then the first covering round over the combinations the reference and
 * they do not test), without starting anything. What follows depends on the verdicts, so it is
 * not listed: when a most-enabled launch fails, the run localizes that failure and by default
 * stops there (coverage.after_found: stop) — the covering rows then never run; a launch that
 * fails to start makes later rounds re-cover what it held.
 */
import { dirname, resolve } from 'node:path';
import { ConstraintSet, type Constraint } from '../../matrix/constraints.js';
import { coveringRound } from '../../matrix/covering-round.js';
import type { CellResult } from '../../matrix/cell-result.js';
import { cellSubmission, DRY_RUN_DIR } from '../../matrix/executors/dry-run.js';
import { buildLaunch, launchKeyOf } from '../../matrix/launch-spec.js';
import { maximalConfigurations } from '../../matrix/maximal.js';
import type { MatrixPlan } from '../../matrix/plan-compile.js';
import { configLevels, type Config } from '../../matrix/space.js';

/** Where the servers would run: launch.cwd (relative to the plan), else here. */
const serverCwd = (plan: MatrixPlan): string =>
  plan.launch.cwd !== undefined ? resolve(dirname(plan.file), plan.launch.cwd) : process.cwd();

interface DryRun {
  reference: Config;
  maximal: number[][];
  covering: number[][];
  validTuples: number;
  exhaustive: number;
}

function compute(plan: MatrixPlan): DryRun {
  const maximal = maximalConfigurations(plan.constraints, plan.baseline, plan.heldAtReference);
  // as if every most-enabled launch passed: the covering round then tests what they do not
  const passed: CellResult[] = maximal.map((config, i) => ({
    id: `m${i + 1}`,
    phase: 'maximal',
    config,
    levels: configLevels(plan.space, config),
    outcome: 'pass',
    probes: [],
    slot: 0,
    startedAt: '',
    durationMs: 0,
  }));
  const knowledge = {
    constraints: (extra: readonly Constraint[] = []) => new ConstraintSet(plan.space, [...plan.constraints.constraints, ...extra]),
    found: () => [],
    maskers: () => plan.maskers,
  };
  const round = coveringRound(plan, knowledge, passed, 0, {});
  return { reference: plan.baseline, maximal, covering: round.rows, validTuples: round.untested, exhaustive: plan.constraints.countValid() };
}

/** The reference and one launch per distinct launch of the rows: rows that differ only in request-scope levels share one. */
function launchesBefore(plan: MatrixPlan, d: DryRun): number {
  const launches = new Set([...d.maximal, ...d.covering].map((c) => launchKeyOf(plan, c)));
  return (plan.reference.kind === 'launch' ? 1 : 0) + launches.size;
}

export function dryRunJson(plan: MatrixPlan, slots: number): string {
  const d = compute(plan);
  const row = (c: Config, id = 'reference') => {
    const submission = cellSubmission(plan, id, c, serverCwd(plan));
    return {
      levels: configLevels(plan.space, c),
      argv: buildLaunch(plan, c).argv,
      ...(submission !== undefined ? { submission } : {}),
    };
  };
  return `${JSON.stringify(
    {
      plan: plan.file,
      factors: plan.space.names.map((name, f) => ({
        name,
        levels: plan.space.levels[f],
        reference: plan.space.levels[f][plan.baseline[f]],
      })),
      constraints: plan.constraints.constraints.map((c) => c.label),
      strength: plan.strength,
      parallel: slots,
      reference: plan.reference.kind === 'url' ? { url: plan.reference.url } : row(d.reference),
      maximal: d.maximal.map((c, i) => row(c, `m${i + 1}`)),
      covering: d.covering.map((c, i) => row(c, `r${i + 1}`)),
      coveringTargets: d.validTuples,
      afterFound: plan.coverage.afterFound,
      launchesBeforeLocalization: launchesBefore(plan, d),
      exhaustive: d.exhaustive,
    },
    null,
    2,
  )}\n`;
}

export function describeDryRun(plan: MatrixPlan, slots: number, planPath: string): string {
  const d = compute(plan);
  const { names, levels } = plan.space;
  const out: string[] = [
    `faultline matrix --dry-run — ${planPath}: ${names.length} factors, strength ${plan.strength}, ${slots} slot(s); nothing is launched`,
    '',
    'Factors (reference level marked *; a choice keeps it in the most-enabled launches):',
    ...names.map(
      (n, f) =>
        `  ${n}: ${levels[f].map((l, v) => (v === plan.baseline[f] ? `${l}*` : l)).join(' | ')}${plan.choices[f] ? '   (choice)' : ''}`,
    ),
  ];
  const labels = plan.constraints.constraints.map((c) => c.label);
  if (labels.length) out.push('', 'Constraints:', ...labels.map((l) => `  ${l}`));
  out.push(
    '',
    plan.reference.kind === 'url'
      ? `Reference: ${plan.reference.url} (not launched)`
      : `Reference launch: ${buildLaunch(plan, d.reference).argv.join(' ')}`,
    '',
    'Array (· = reference level):',
  );
  const header = ['row', 'phase', ...names];
  const rows = [
    ...d.maximal.map((c, i) => [
      `m${i + 1}`,
      'maximal',
      ...c.map((v, f) => (v === plan.baseline[f] ? '·' : levels[f][v])),
    ]),
    ...d.covering.map((c, i) => [
      `r${i + 1}`,
      'covering',
      ...c.map((v, f) => (v === plan.baseline[f] ? '·' : levels[f][v])),
    ]),
  ];
  const all = [header, ...rows];
  const widths = header.map((_, j) => Math.max(...all.map((r) => r[j].length)));
  out.push(
    ...all.map(
      (r) =>
        `  ${r
          .map((cell, j) => cell.padEnd(widths[j]))
          .join('  ')
          .trimEnd()}`,
    ),
  );
  const before = launchesBefore(plan, d);
  out.push(
    '',
    `${before} launches before localization (reference, ${d.maximal.length} maximal, ${d.covering.length} covering rows for the ${d.validTuples} valid ${plan.strength}-way combinations the others do not test); exhaustive: ${d.exhaustive}`,
    plan.coverage.afterFound === 'stop'
      ? 'When a most-enabled launch fails, the run localizes that failure and stops there (coverage.after_found: stop): the covering rows run only when none fails.'
      : 'When a most-enabled launch fails, the run localizes that failure first, then runs the covering rows (coverage.after_found: cover).',
  );
  out.push(...submissions(plan, d));
  return `${out.join('\n')}\n`;
}

/** Slurm: each cell's batch script; Kubernetes: each cell's Job and Service. Nothing for local cells. */
function submissions(plan: MatrixPlan, d: DryRun): string[] {
  const rows: [string, Config][] = [
    ...(plan.reference.kind === 'launch' ? [['reference', d.reference] as [string, Config]] : []),
    ...d.maximal.map((c, i): [string, Config] => [`m${i + 1}`, c]),
    ...d.covering.map((c, i): [string, Config] => [`r${i + 1}`, c]),
  ];
  const what = plan.executor.kind === 'slurm' ? 'sbatch script' : 'Job and Service';
  return rows.flatMap(([id, c]) => {
    const text = cellSubmission(plan, id, c, serverCwd(plan));
    return text === undefined
      ? []
      : [
          '',
          `── ${id}: ${what} (${DRY_RUN_DIR} is the run directory; a run names its cells c001, c002, …) ──`,
          text.trimEnd(),
        ];
  });
}
