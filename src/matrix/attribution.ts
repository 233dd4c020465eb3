/**
 * The result of a matrix run as plain data (the `--format json` output and what the text and
 * HTML reports draw): the attribution matrix (levels per launch → verdict and corrupt rate),
 * the minimal failing interactions with the failing and safe levels of each of their factors
 * and their verified remedies, the factors not involved, launch failures and what was learned
 * from them, the t-way combinations left untested or untestable and why, and launches used
 * against exhaustive and one-factor-at-a-time testing.
 */
import type { CellResult } from './cell-result.js';
import { LAUNCH_FAULT_OUTCOMES, type CellOutcome } from './executor.js';
import type { Assignment } from './localize.js';
import type { MatrixRun } from './run.js';
import { configKey, type Config, type FactorSpace } from './space.js';

export interface AttributionCell {
  id: string;
  phase: string;
  levels: Record<string, string>;
  outcome: CellOutcome;
  corruptRate?: number;
  probeRounds: number;
  recheckOf?: string;
  detail?: string;
  /** Workload features every corrupt request of the cell had (workload suite). */
  features?: string[];
}

export interface Remedy {
  /** factor → new level: the one change (plus what the constraints move along with it). */
  change: Record<string, string>;
  cell: string;
  /** A second launch of the same configuration, when the first ran during the search. */
  recheck?: string;
  outcome: CellOutcome;
}

export interface FactorLevels {
  /** Levels that fail with the rest of the interaction (the one the search found first). */
  failing: string[];
  /** Levels that clear it, each verified by a launch that passed. */
  safe: string[];
  /** Levels no valid configuration combines with the rest of the interaction. */
  impossible: string[];
  /** Levels whose launch gave no verdict. */
  unknown: string[];
}

export interface AttributedInteraction {
  status: 'verified' | 'inconclusive';
  /** The failing cell the search started from. */
  source: string;
  method: string;
  interaction: Record<string, string>;
  /** Per factor of the interaction: every level that fails the same way, and every safe one. */
  levels?: Record<string, FactorLevels>;
  /** Levels the constraints force along with it (not part of the cause). */
  forced: Record<string, string>;
  /** The cell holding exactly the interaction on the reference background (it fails). */
  minimalCell?: string;
  /** Each single change that clears it, verified by a run that passed. */
  remedies: Remedy[];
  /** The interaction with every other factor off its reference level. */
  context?: { cell: string; outcome: CellOutcome };
  reason?: string;
}

export interface AttributionReport {
  verdict: 'corruption-found' | 'clean' | 'inconclusive';
  plan: { file: string; hash: string; strength: number; confirm: number | 'auto'; missRate?: number };
  factors: { name: string; levels: string[]; reference: string; description?: string }[];
  cells: AttributionCell[];
  interactions: AttributedInteraction[];
  /** Factors in no verified interaction, with the levels corruption was seen under. */
  notInvolved: { factor: string; corruptWith: string[] }[];
  /** Failing cells explained by an interaction (cell id → interaction index). */
  explained: Record<string, number>;
  /** Failing cells not examined (localize.max_faults reached). */
  unexamined: string[];
  /** What the failed launches have in common; `alternatives`: other patterns that fit the same launches. */
  launchFailures: { levels: Record<string, string>; alternatives?: Record<string, string>[]; cells: string[] }[];
  /** Level combinations the run learned never launch; later launches avoided them. */
  learnedConstraints?: { levels: Record<string, string>; cells: string[] }[];
  /** Levels that hide other faults: a PASS with one present tests only the combinations holding it. */
  maskers?: { declared: Record<string, string[]>[]; learned: Record<string, string>[] };
  launches: {
    used: number;
    thisRun: number;
    reusedFromJournal: number;
    reference: number;
    coveringRows: number;
    /** Valid configurations: what exhaustive testing would launch. */
    exhaustive: number;
    /** Reference + every non-reference level once (cannot see interactions). */
    oneFactorAtATime: number;
  };
  coverage: {
    strength: number;
    validTuples: number;
    /** Valid combinations not tested by a launch whose verdict could show a fault in them (= untested.count). */
    uncoveredByVerdicts: number;
    tested?: number;
    untestable?: { count: number; byCause: { cause: string; count: number }[] };
    untested?: { count: number; examples: Record<string, string>[] };
    /** complete, or why the covering rounds stopped with combinations left (after-found: the plan's coverage.after_found). */
    stoppedBy?: MatrixRun['coverageStop'];
  };
}

/** How PASS verdicts were confirmed, in words (text and HTML reports). */
export function describeConfirmation(plan: AttributionReport['plan']): string {
  if (plan.confirm === 'auto')
    return `a PASS re-probed as often as a sequential test at a ${((plan.missRate ?? 0) * 100).toFixed(plan.missRate && plan.missRate < 0.01 ? 1 : 0)}% miss rate needs for why it ran`;
  return plan.confirm > 0 ? `a PASS re-probed ${plan.confirm}× before it is believed` : 'a PASS believed at once (confirm: 0)';
}

const named = (space: FactorSpace, assignments: Assignment[]): Record<string, string> =>
  Object.fromEntries(assignments.map((a) => [space.names[a.factor], space.levels[a.factor][a.level]]));

function changeBetween(space: FactorSpace, from: Config, to: Config): Record<string, string> {
  const out: Record<string, string> = {};
  to.forEach((v, f) => {
    if (v !== from[f]) out[space.names[f]] = space.levels[f][v];
  });
  return out;
}

/** A journaled cell as the report shows it. */
export function attributionCell(c: CellResult): AttributionCell {
  return {
    id: c.id,
    phase: c.phase,
    levels: c.levels,
    outcome: c.outcome,
    ...(c.corruptRate !== undefined ? { corruptRate: c.corruptRate } : {}),
    probeRounds: c.probes.length,
    ...(c.recheckOf ? { recheckOf: c.recheckOf } : {}),
    ...(c.detail ? { detail: c.detail } : {}),
    ...(c.features?.length ? { features: c.features } : {}),
  };
}

export function buildAttribution(run: MatrixRun): AttributionReport {
  const { plan } = run;
  const space = plan.space;
  const byKey = new Map(run.cells.filter((c) => !c.recheckOf).map((c) => [configKey(c.config), c]));
  const recheckOf = new Map(run.cells.filter((c) => c.recheckOf).map((c) => [c.recheckOf as string, c]));
  const cellOf = (config: Config | undefined) => (config ? byKey.get(configKey(config)) : undefined);

  const interactions: AttributedInteraction[] = run.localizations.map(({ source, result, levelSets }) => {
    const minimal = cellOf(result.minimal);
    const tried = [
      ...result.relaxations.filter((r) => r.against === 'reference').map((r) => r.config),
      ...levelSets.flatMap((set) => set.trials.map((t) => t.config)),
    ];
    const seen = new Set<string>();
    const remedies: Remedy[] = (result.minimal ? tried : []).flatMap((config) => {
      if (seen.has(configKey(config))) return []; // a relaxation and a level trial can be one configuration
      seen.add(configKey(config));
      const cell = cellOf(config);
      const recheck = cell && recheckOf.get(cell.id);
      if (!cell || cell.outcome !== 'pass' || (recheck && recheck.outcome !== 'pass')) return [];
      const change = changeBetween(space, result.minimal as Config, config);
      return [{ change, cell: cell.id, ...(recheck ? { recheck: recheck.id } : {}), outcome: cell.outcome }];
    });
    const levelNames = (f: number, vs: readonly number[]) => vs.map((v) => space.levels[f][v]);
    const levels = Object.fromEntries(
      levelSets.map((set) => [
        space.names[set.factor],
        {
          failing: levelNames(set.factor, set.failing),
          safe: levelNames(set.factor, set.safe),
          impossible: levelNames(set.factor, set.impossible),
          unknown: levelNames(set.factor, set.unknown),
        },
      ]),
    );
    const contextCell = cellOf(result.context?.config);
    return {
      status: result.status === 'found' ? 'verified' : 'inconclusive',
      source,
      method: result.method,
      interaction: named(space, result.interaction),
      levels,
      forced: named(space, result.forced),
      minimalCell: result.status === 'found' ? minimal?.id : undefined,
      remedies,
      context: contextCell ? { cell: contextCell.id, outcome: contextCell.outcome } : undefined,
      reason: result.reason,
    };
  });

  const verified = run.localizations.filter((l) => l.result.status === 'found');
  const involved = new Set(verified.flatMap((l) => [...l.result.interaction, ...l.result.forced].map((a) => a.factor)));
  const corrupt = run.cells.filter((c) => c.outcome === 'corrupt');
  const notInvolved =
    verified.length === 0
      ? []
      : space.names.flatMap((name, f) =>
          involved.has(f) ? [] : [{ factor: name, corruptWith: [...new Set(corrupt.map((c) => space.levels[f][c.config[f]]))] }],
        );

  const launchFailures = launchFailurePatterns(space, plan.baseline, run.cells);
  const oneFactorAtATime = 1 + space.levels.reduce((n, l) => n + l.length - 1, 0);
  const coverage = run.coverage;
  const anyInconclusive =
    interactions.some((i) => i.status === 'inconclusive') ||
    run.unexamined.length > 0 ||
    coverage.untested.count > 0 ||
    coverage.untestable.count > 0;
  const verdict = verified.length > 0 ? 'corruption-found' : corrupt.length > 0 || anyInconclusive ? 'inconclusive' : 'clean';

  return {
    verdict,
    plan: {
      file: plan.file,
      hash: plan.hash,
      strength: coverage.strength,
      ...(plan.confirm.kind === 'auto' ? { confirm: 'auto' as const, missRate: plan.confirm.missRate } : { confirm: plan.confirm.reprobes }),
    },
    factors: space.names.map((name, f) => ({
      name,
      levels: [...space.levels[f]],
      reference: space.levels[f][plan.baseline[f]],
      ...(plan.descriptions[f] ? { description: plan.descriptions[f] } : {}),
    })),
    cells: run.cells.map(attributionCell),
    interactions,
    notInvolved,
    explained: run.explained,
    unexamined: run.unexamined,
    launchFailures,
    learnedConstraints: run.learned.map((l) => ({ levels: named(space, l.levels), cells: l.cells })),
    maskers: {
      declared: plan.maskers.map((m) =>
        Object.fromEntries(m.map((c) => [space.names[c.factor], space.levels[c.factor].filter((_, v) => c.allowed[v])])),
      ),
      learned: run.learnedMaskers.map((a) => named(space, [a])),
    },
    launches: {
      used: run.launches.total,
      thisRun: run.launches.thisRun,
      reusedFromJournal: run.launches.reused,
      reference: plan.reference.kind === 'launch' ? 1 : 0,
      coveringRows: run.coveringRounds.reduce((n, r) => n + r.rows.length, 0),
      exhaustive: run.validConfigurations,
      oneFactorAtATime,
    },
    coverage: {
      strength: coverage.strength,
      validTuples: coverage.validTuples,
      tested: coverage.tested,
      uncoveredByVerdicts: coverage.untested.count,
      untestable: coverage.untestable,
      untested: coverage.untested,
      stoppedBy: run.coverageStop,
    },
  };
}

/**
 * What the failed launches have in common: non-reference levels, or pairs of them, whose every
 * launch failed (or timed out) — the likely bad flag. Patterns are taken greedily, the one that
 * accounts for the most failures first; a pair needs at least two launches behind it. Failures
 * no pattern accounts for are listed one by one.
 */
function launchFailurePatterns(space: FactorSpace, reference: Config, cells: MatrixRun['cells']): AttributionReport['launchFailures'] {
  // only failures a level can cause: a node failure or a preemption says nothing about the flags
  const failed = new Set(cells.filter((c) => LAUNCH_FAULT_OUTCOMES.includes(c.outcome)).map((c) => c.id));
  if (failed.size === 0) return [];
  const levels: [number, number][] = space.levels.flatMap((ls, f) => ls.flatMap((_, v) => (v === reference[f] ? [] : [[f, v] as [number, number]])));
  const candidates: { pattern: [number, number][]; cells: string[] }[] = [];
  const consider = (pattern: [number, number][], minCells: number): boolean => {
    const holding = cells.filter((c) => pattern.every(([f, v]) => c.config[f] === v));
    if (holding.length < minCells || !holding.every((c) => failed.has(c.id))) return false;
    candidates.push({ pattern, cells: holding.map((c) => c.id) });
    return true;
  };
  const single = new Set(levels.filter((l) => consider([l], 1)).map(([f, v]) => `${f}.${v}`));
  for (let i = 0; i < levels.length; i++)
    for (let j = i + 1; j < levels.length; j++) {
      const [a, b] = [levels[i], levels[j]];
      if (a[0] === b[0] || single.has(`${a[0]}.${a[1]}`) || single.has(`${b[0]}.${b[1]}`)) continue;
      consider([a, b], 2);
    }
  const out: AttributionReport['launchFailures'] = [];
  const accounted = new Set<string>();
  while (true) {
    const best = candidates
      .map((c) => ({ c, fresh: c.cells.filter((id) => !accounted.has(id)).length }))
      .sort((x, y) => y.fresh - x.fresh || x.c.pattern.length - y.c.pattern.length)[0];
    if (!best || best.fresh === 0) break;
    best.c.cells.forEach((id) => accounted.add(id));
    const named = (pattern: [number, number][]) => Object.fromEntries(pattern.map(([f, v]) => [space.names[f], space.levels[f][v]]));
    // patterns just as small that fit exactly the same launches: the evidence cannot tell them apart
    const alternatives = candidates
      .filter((c) => c !== best.c && c.pattern.length === best.c.pattern.length && c.cells.join() === best.c.cells.join())
      .map((c) => named(c.pattern));
    out.push({ levels: named(best.c.pattern), ...(alternatives.length ? { alternatives } : {}), cells: best.c.cells });
  }
  for (const c of cells) if (failed.has(c.id) && !accounted.has(c.id)) out.push({ levels: c.levels, cells: [c.id] });
  return out;
}
