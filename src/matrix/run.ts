/**
 * One matrix run, start to finish, with the server launcher and the probe passed in:
 *
 * 1. the reference: launched once (or a fixed URL) and recorded by the probe;
 * 2. the maximal configurations (all suspects on, one per exclusive choice); when some never
 *    launch, the levels to blame are learned and the maximal configurations redone without them;
 * 3. localization of each failing one at once (research note §2.3: detect with the most-enabled
 *    launch, isolate by binary search), with verification, a context check and level
 *    generalization (run-search.ts);
 * 4. unless an interaction was found and `coverage.after_found` is stop: covering rounds of
 *    strength t over the valid combinations not tested yet (tested-tuples.ts: launches without a
 *    verdict, masked passes and fault-hidden failures test nothing), each row avoiding the
 *    levels that never launch and the interactions found; failing rows are localized after
 *    each round. Later rounds re-cover what earlier ones left without a verdict.
 *
 * Every cell goes through the CellRunner (journal, memo, confirmation, slots), so a resumed
 * run replays the same decisions from the journal and launches only what is missing.
 */
import { UserError } from '../core/errors.js';
import type { MatrixProbe } from './cell-probe.js';
import type { CellResult } from './cell-result.js';
import { CellRunner, RunInterrupted } from './cells.js';
import { buildCoveringArray } from './covering.js';
import { coveringRound, withReference, type CoveringRound } from './covering-round.js';
import type { Executor, ServerHandle } from './executor.js';
import type { Journal, JournalRecord } from './journal.js';
import { buildLaunch, launchKeyOf, requestFieldsFor } from './launch-spec.js';
import { maximalConfigurations } from './maximal.js';
import type { MatrixPlan } from './plan-compile.js';
import { FailureSearch, type LocalizedFault } from './run-search.js';
import { configKey, configLevels, type Config } from './space.js';
import { countingRows, summarizeCoverage, testedPredicate, type CoverageSummary } from './tested-tuples.js';
import type { LearnedLaunchConstraint } from './launch-learning.js';
import { captureVariants, hasRequestScope, referenceFor, siblingsOf } from './request-variants.js';

export type { LocalizedFault } from './run-search.js';

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
  /** Covering-array local-search steps at most (tests pin it). */
  shrinkSteps?: number;
  /** Builds the covering arrays (simulations pass a memoized one). */
  coveringArray?: typeof buildCoveringArray;
}

export interface MatrixRun {
  plan: MatrixPlan;
  /** Launches for the reference (0 with a fixed URL or when resumed). */
  referenceLaunches: number;
  maximal: number[][];
  /** The covering rounds that ran (none when the run stopped at an interaction found first). */
  coveringRounds: CoveringRound[];
  /** Why no (further) covering round ran. */
  coverageStop: 'complete' | 'after-found' | 'rounds-exhausted' | 'nothing-launchable';
  /** Every cell, in the order the run asked for it. */
  cells: CellResult[];
  localizations: LocalizedFault[];
  /** Failing cells that contain an interaction already found: cell id → localization index. */
  explained: Record<string, number>;
  /** Failing cells left alone because localize.max_faults was reached. */
  unexamined: string[];
  /** Level combinations that never launched, learned from the cells. */
  learned: LearnedLaunchConstraint[];
  /** Maskers learned (declared ones are in the plan). */
  learnedMaskers: { factor: number; level: number }[];
  launches: { total: number; thisRun: number; reused: number };
  /** Exhaustive testing would need this many launches. */
  validConfigurations: number;
  /** t-way coverage by cells whose verdict could show a fault in each combination. */
  coverage: CoverageSummary;
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
  /** The launched reference when it does not stay up as a scorer: cells at its launch arguments may run on it. */
  handoff?: ServerHandle;
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
    const data = await captureVariants(plan, (request) => capture(probe, url, plan, signal, request));
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
      data = await captureVariants(plan, (request) => capture(probe, server.baseUrl, plan, signal, request));
      journal?.append({ type: 'reference', data, at: new Date().toISOString() });
    }
  } catch (e) {
    await server.stop();
    throw e;
  }
  if (!keepAlive) return { data, launches: 1, handoff: server };
  return { data, launches: 1, scorerUrl: server.baseUrl, kept: server };
}

async function runCells(options: MatrixRunOptions, ref: ReferenceState): Promise<MatrixRun> {
  const { plan, executor, probe, journal } = options;
  const signal = options.signal ?? new AbortController().signal;
  const emit = options.onEvent ?? (() => {});
  const resumed = options.resumed ?? [];

  const runner = new CellRunner({
    space: plan.space,
    launchFor: (config) => buildLaunch(plan, config),
    launchKey: (config) => launchKeyOf(plan, config),
    requestFor: (config) => requestFieldsFor(plan, config),
    ...(hasRequestScope(plan) ? { siblingsOf: (config: Config) => siblingsOf(plan, config) } : {}),
    executor,
    probe,
    probeOptions: plan.probe,
    referenceFor: (config) => referenceFor(plan, ref.data, config),
    ...(ref.scorerUrl ? { scorerUrl: ref.scorerUrl } : {}),
    journal,
    previous: resumed.flatMap((r) => (r.type === 'cell' ? [r.cell] : [])),
    signal,
    onCell: (cell, reused) => emit({ type: 'cell', cell, reused }),
  });
  if (ref.handoff) runner.adopt(launchKeyOf(plan, plan.baseline), ref.handoff, 'reference');
  try {
    return await searchAndCover(options, ref, runner);
  } finally {
    await runner.close();
  }
}

async function searchAndCover(options: MatrixRunOptions, ref: ReferenceState, runner: CellRunner): Promise<MatrixRun> {
  const { plan, executor, journal } = options;
  const emit = options.onEvent ?? (() => {});
  const search = new FailureSearch(plan, runner, executor.slots, (cell) =>
    emit({ type: 'phase', phase: 'localize', detail: `localizing the failure of ${cell.id}` }),
  );

  // 2. Maximal configurations; redone while launches teach which levels never come up.
  const maximal: number[][] = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    const fresh = maximalConfigurations(search.constraints(), plan.baseline, plan.heldAtReference).filter(
      (c) => !maximal.some((m) => configKey(m) === configKey(c)),
    );
    if (fresh.length === 0) break;
    emit({ type: 'phase', phase: 'maximal', detail: `${fresh.length} most-enabled configuration(s)` });
    maximal.push(...fresh);
    const cells = await runner.runAll(fresh, 'maximal', search.rounds('maximal'));
    const learnedBefore = search.learned.length;
    await search.learn();
    await search.localizeFailures(cells);
    if (search.learned.length === learnedBefore || !cells.some((c) => c.outcome === 'launch-failed' || c.outcome === 'timeout')) break;
  }

  // 3. Covering rounds over what is not tested yet.
  const coveringRounds: CoveringRound[] = [];
  let coverageStop: MatrixRun['coverageStop'] = 'rounds-exhausted';
  for (let round = 0; round <= plan.coverage.rounds; round++) {
    if (search.found().length > 0 && plan.coverage.afterFound === 'stop') {
      coverageStop = 'after-found';
      break;
    }
    const cells = await runner.results();
    const built = coveringRound(plan, search, cells, round, options);
    if (built.rows.length === 0) {
      coverageStop = built.untested === 0 ? 'complete' : 'nothing-launchable';
      break;
    }
    coveringRounds.push(built);
    emit({
      type: 'phase',
      phase: 'covering',
      detail: `round ${round + 1}, strength ${plan.strength}: ${built.rows.length} new configuration(s) for ${built.untested} combination(s) not tested yet`,
    });
    // In waves of one row per slot: with after_found stop, the first failing row is localized at
    // once and the rest of the round is not launched (research note §2.3: stop at the first
    // failing test, as binary splitting does).
    const stopEarly = plan.coverage.afterFound === 'stop';
    const wave = stopEarly ? Math.max(1, executor.slots) : built.rows.length;
    for (let at = 0; at < built.rows.length; at += wave) {
      const ran = await runner.runAll(built.rows.slice(at, at + wave), 'covering', search.rounds('covering'));
      await search.learn();
      await search.localizeFailures(ran);
      await search.learn(); // maskers follow from the interactions just found
      if (stopEarly && search.found().length > 0) break;
    }
  }

  const cells = await runner.results();
  const found = search.found();
  const tested = testedPredicate(countingRows(withReference(plan, cells), found, search.maskers()), found);
  const coverage = summarizeCoverage(
    plan.space,
    plan.constraints,
    search.learned.map((l) => ({ label: l.constraint.label, constraint: l.constraint })),
    plan.strength,
    tested,
  );
  journal?.append({ type: 'done', at: new Date().toISOString() });
  emit({ type: 'phase', phase: 'done', detail: `${cells.length} cell(s)` });
  return {
    plan,
    referenceLaunches: ref.launches,
    maximal,
    coveringRounds,
    coverageStop,
    cells,
    localizations: search.localizations,
    explained: search.explained,
    unexamined: search.unexamined,
    learned: search.learned,
    learnedMaskers: search.learnedMaskers,
    launches: {
      // cells that ran on a server another cell launched cost no launch
      total: cells.filter((c) => !c.reusedServer).length + (plan.reference.kind === 'launch' ? 1 : 0),
      thisRun: runner.launched + ref.launches,
      reused: runner.reusedCount,
    },
    validConfigurations: plan.constraints.countValid(),
    coverage,
  };
}

async function capture(probe: MatrixProbe, url: string, plan: MatrixPlan, signal: AbortSignal, request?: Record<string, unknown>): Promise<unknown> {
  try {
    return await probe.captureReference(url, plan.probe, signal, request);
  } catch (e) {
    if (signal.aborted) throw new RunInterrupted();
    throw new UserError(`could not record the reference outputs from ${url}: ${(e as Error)?.message ?? String(e)}`, {
      code: 'E_MATRIX_REFERENCE',
      hint: 'the reference server must answer the probe; check its log and the probe options in the plan',
    });
  }
}

