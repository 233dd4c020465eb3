/**
 * One matrix run, start to finish, with the server launcher and the probe passed in:
 *
 * 1. the reference: launched once (or a fixed URL) and recorded by the probe;
 * 2. the maximal configurations (all suspects on, one per exclusive choice);
 * 3. the strength-t covering array, seeded with what already ran;
 * 4. localization of each failing row not explained by an interaction already found
 *    (fewest non-reference levels first), with verification and a context check.
 *
 * Every cell goes through the CellRunner (journal, memo, confirmation, slots), so a resumed
 * run replays the same decisions from the journal and launches only what is missing.
 */
import { UserError } from '../core/errors.js';
import type { MatrixProbe } from './cell-probe.js';
import type { CellResult } from './cell-result.js';
import { CellRunner, RunInterrupted } from './cells.js';
import { buildCoveringArray, type CoveringArray } from './covering.js';
import { checkCoverage, type CoverageCheck } from './covering-check.js';
import { isConclusive, type Executor, type ServerHandle } from './executor.js';
import type { Journal, JournalRecord } from './journal.js';
import { buildLaunch } from './launch-spec.js';
import { localizeFailure, type Localization, type Verdict } from './localize.js';
import { maximalConfigurations } from './maximal.js';
import type { MatrixPlan } from './plan-compile.js';
import { configKey, configLevels, type Config } from './space.js';

export type RunEvent =
  | { type: 'phase'; phase: 'reference' | 'maximal' | 'covering' | 'localize' | 'done'; detail: string }
  | { type: 'cell'; cell: CellResult; reused: boolean };

export interface MatrixRunOptions {
  plan: MatrixPlan;
  executor: Executor;
  probe: MatrixProbe;
  journal?: Journal;
  /** Records of the run being resumed (from Journal.resume). */
  resumed?: readonly JournalRecord[];
  signal?: AbortSignal;
  onEvent?: (event: RunEvent) => void;
  /** Covering-array local-search budget (tests lower it). */
  shrinkSteps?: number;
  /** Builds the covering array (simulations pass a memoized one). */
  coveringArray?: typeof buildCoveringArray;
}

export interface LocalizedFault {
  /** The failing cell the search started from. */
  source: string;
  result: Localization;
}

export interface MatrixRun {
  plan: MatrixPlan;
  /** Launches for the reference (0 with a fixed URL or when resumed). */
  referenceLaunches: number;
  maximal: number[][];
  covering: CoveringArray;
  /** Every cell, in the order the run asked for it. */
  cells: CellResult[];
  localizations: LocalizedFault[];
  /** Failing cells that contain an interaction already found: cell id → localization index. */
  explained: Record<string, number>;
  /** Failing cells left alone because localize.max_faults was reached. */
  unexamined: string[];
  launches: { total: number; thisRun: number; reused: number };
  /** Exhaustive testing would need this many launches. */
  validConfigurations: number;
  /** t-way coverage by cells with a verdict (launch failures and probe errors cover nothing). */
  conclusiveCoverage: CoverageCheck;
}

export async function runMatrix(options: MatrixRunOptions): Promise<MatrixRun> {
  const { plan } = options;
  const signal = options.signal ?? new AbortController().signal;
  const emit = options.onEvent ?? (() => {});
  const resumed = options.resumed ?? [];

  // 1. Reference.
  const stored = resumed.find((r): r is Extract<JournalRecord, { type: 'reference' }> => r.type === 'reference');
  // a finished run being replayed probes nothing: its kept-alive reference is not relaunched
  const finished = resumed.some((r) => r.type === 'done');
  const launching = plan.reference.kind === 'launch' && (!stored || (plan.reference.keepAlive && !finished));
  emit({
    type: 'phase',
    phase: 'reference',
    detail: plan.reference.kind === 'url' ? plan.reference.url : launching ? 'launching the reference configuration' : 'recorded in the journal',
  });
  try {
    const ref = await startReference(options, stored?.data, finished, signal);
    try {
      return await runCells(options, ref);
    } finally {
      await ref.kept?.stop();
    }
  } finally {
    // what the executor still holds (jobs of an interrupted run nothing re-attached to) ends with the run
    await options.executor.close?.();
  }
}

interface ReferenceState {
  data: unknown;
  launches: number;
  /** A live reference that scores cells: the plan's URL or the kept-alive server. */
  scorerUrl?: string;
  /** The launched reference, when it stays up for the run. */
  kept?: ServerHandle;
}

/**
 * Records the reference (unless a resumed run already has it) and, for a kept-alive reference,
 * leaves the server running (relaunched on resume: scoring needs it live).
 */
async function startReference(options: MatrixRunOptions, stored: unknown, finished: boolean, signal: AbortSignal): Promise<ReferenceState> {
  const { plan, executor, probe, journal } = options;
  if (plan.reference.kind === 'url') {
    const url = plan.reference.url;
    if (stored !== undefined) return { data: stored, launches: 0, scorerUrl: url };
    const data = await capture(probe, url, plan, signal);
    journal?.append({ type: 'reference', url, data, at: new Date().toISOString() });
    return { data, launches: 0, scorerUrl: url };
  }
  const keepAlive = plan.reference.keepAlive;
  if (stored !== undefined && (!keepAlive || finished)) return { data: stored, launches: 0 };
  const levels = configLevels(plan.space, plan.baseline);
  const spec = buildLaunch(plan, plan.baseline);
  // a kept-alive reference runs beside every cell: it takes a slot of its own, after the cells'
  const slot = keepAlive ? executor.slots : 0;
  const gpus = plan.reference.gpus;
  const launched = await executor.launch(
    { cellId: 'reference', config: plan.baseline, levels, argv: spec.argv, env: spec.env, slot, gpuCount: spec.gpus, ...(gpus !== undefined ? { gpus } : {}) },
    signal,
  );
  if (signal.aborted) {
    if (launched.ok) await launched.server.stop();
    throw new RunInterrupted();
  }
  if (!launched.ok)
    throw new UserError(`the reference configuration did not start (${launched.outcome}): ${launched.detail}`, {
      code: 'E_MATRIX_REFERENCE',
      hint: 'nothing can be compared without it; check the launch command and the reference log in the run directory (cells/reference)',
    });
  const server = launched.server;
  let data = stored;
  try {
    if (data === undefined) {
      data = await capture(probe, server.baseUrl, plan, signal);
      journal?.append({ type: 'reference', data, at: new Date().toISOString() });
    }
  } catch (e) {
    await server.stop();
    throw e;
  }
  if (!keepAlive) {
    await server.stop();
    return { data, launches: 1 };
  }
  return { data, launches: 1, scorerUrl: server.baseUrl, kept: server };
}

async function runCells(options: MatrixRunOptions, ref: ReferenceState): Promise<MatrixRun> {
  const { plan, executor, probe, journal } = options;
  const signal = options.signal ?? new AbortController().signal;
  const emit = options.onEvent ?? (() => {});
  const resumed = options.resumed ?? [];
  const referenceLaunches = ref.launches;
  const reference = ref.data;

  const runner = new CellRunner({
    space: plan.space,
    launchFor: (config) => buildLaunch(plan, config),
    executor,
    probe,
    probeOptions: plan.probe,
    reference,
    ...(ref.scorerUrl ? { scorerUrl: ref.scorerUrl } : {}),
    confirm: plan.confirm,
    journal,
    previous: resumed.flatMap((r) => (r.type === 'cell' ? [r.cell] : [])),
    signal,
    onCell: (cell, reused) => emit({ type: 'cell', cell, reused }),
  });

  // 2. Maximal configurations.
  const maximal = maximalConfigurations(plan.constraints, plan.baseline, plan.choices);
  emit({ type: 'phase', phase: 'maximal', detail: `${maximal.length} most-enabled configuration(s)` });
  const maximalCells = await runner.runAll(maximal, 'maximal');

  // 3. Covering array, seeded with the reference (clean by definition) and what has a verdict.
  const seeds: Config[] = [
    ...(plan.reference.kind === 'launch' ? [plan.baseline] : []),
    ...maximalCells.filter((c) => isConclusive(c.outcome)).map((c) => c.config),
  ];
  const covering = (options.coveringArray ?? buildCoveringArray)(plan.space, {
    strength: plan.strength,
    constraints: plan.constraints,
    seedRows: dedupe(seeds),
    preferredLevels: plan.baseline,
    seed: plan.seed,
    shrinkSteps: options.shrinkSteps,
  });
  emit({ type: 'phase', phase: 'covering', detail: `strength ${covering.strength}: ${covering.rows.length} new configuration(s)` });
  const coveringCells = await runner.runAll(covering.rows, 'covering');

  // 4. Localization of failing rows.
  const localizations: LocalizedFault[] = [];
  const explained: Record<string, number> = {};
  const unexamined: string[] = [];
  const nonReference = (c: Config) => c.filter((v, f) => v !== plan.baseline[f]).length;
  const failing = [...maximalCells, ...coveringCells]
    .filter((c) => c.outcome === 'corrupt')
    .sort((a, b) => nonReference(a.config) - nonReference(b.config));
  // A FAIL is trusted: once any launch of a configuration corrupted, that configuration fails.
  const failed = new Set<string>();
  const consultedBySearch = new Set<string>();
  const verdictOf = (cell: CellResult): Verdict =>
    cell.outcome === 'corrupt' || failed.has(configKey(cell.config)) ? 'fail' : cell.outcome === 'pass' ? 'pass' : 'unknown';
  const env = {
    constraints: plan.constraints,
    parallel: executor.slots,
    choices: plan.choices,
    test: async (configs: readonly Config[], purpose: 'search' | 'verify') => {
      const cells = await runner.runAll(configs, purpose === 'search' ? 'localize' : 'verify');
      if (purpose === 'search') for (const c of configs) consultedBySearch.add(configKey(c));
      else {
        // A PASS that verification leans on but that ran earlier (in the array, or in the search
        // it is meant to check) gets a second, separate launch: one missed corruption there would
        // otherwise be both the wrong turn and its own confirmation.
        const reused = cells.filter(
          (c) => verdictOf(c) === 'pass' && (c.phase !== 'verify' || consultedBySearch.has(configKey(c.config))),
        );
        const rechecks = await Promise.all(reused.map((c) => runner.run(c.config, 'verify', c.id)));
        for (const r of rechecks) if (r.outcome === 'corrupt') failed.add(configKey(r.config));
      }
      return cells.map(verdictOf);
    },
  };
  for (const cell of failing) {
    const by = localizations.findIndex(
      (l) => l.result.status === 'found' && l.result.interaction.every((a) => cell.config[a.factor] === a.level),
    );
    if (by >= 0) {
      explained[cell.id] = by;
      continue;
    }
    if (localizations.length >= plan.maxFaults) {
      unexamined.push(cell.id);
      continue;
    }
    emit({ type: 'phase', phase: 'localize', detail: `localizing the failure of ${cell.id}` });
    const result = await localizeFailure(env, cell.config, plan.baseline);
    const same = localizations.findIndex((l) => l.result.status === 'found' && sameInteraction(l.result, result));
    if (result.status === 'found' && same >= 0) explained[cell.id] = same;
    else localizations.push({ source: cell.id, result });
  }

  const cells = await runner.results();
  const conclusive = cells.filter((c) => isConclusive(c.outcome)).map((c) => c.config);
  const conclusiveCoverage = checkCoverage(plan.space, plan.constraints, covering.strength, [
    ...(plan.reference.kind === 'launch' ? [plan.baseline] : []),
    ...conclusive,
  ]);
  journal?.append({ type: 'done', at: new Date().toISOString() });
  emit({ type: 'phase', phase: 'done', detail: `${cells.length} cell(s)` });
  return {
    plan,
    referenceLaunches,
    maximal,
    covering,
    cells,
    localizations,
    explained,
    unexamined,
    launches: {
      total: cells.length + (plan.reference.kind === 'launch' ? 1 : 0),
      thisRun: runner.launched + referenceLaunches,
      reused: runner.reusedCount,
    },
    validConfigurations: plan.constraints.countValid(),
    conclusiveCoverage,
  };
}

async function capture(probe: MatrixProbe, url: string, plan: MatrixPlan, signal: AbortSignal): Promise<unknown> {
  try {
    return await probe.captureReference(url, plan.probe, signal);
  } catch (e) {
    if (signal.aborted) throw new RunInterrupted();
    throw new UserError(`could not record the reference outputs from ${url}: ${(e as Error)?.message ?? String(e)}`, {
      code: 'E_MATRIX_REFERENCE',
      hint: 'the reference server must answer the probe; check its log and the probe options in the plan',
    });
  }
}

function sameInteraction(a: Localization, b: Localization): boolean {
  const text = (l: Localization) => JSON.stringify(l.interaction);
  return text(a) === text(b);
}

function dedupe(rows: Config[]): Config[] {
  const seen = new Set<string>();
  return rows.filter((r) => {
    const key = r.join('.');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
