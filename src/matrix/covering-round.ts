/**
 * One covering round of a matrix run: the launches that test the valid t-way combinations not
 * tested yet (tested-tuples.ts decides what counts). Rows avoid the levels learned never to
 * launch, the interactions already found (a row holding one fails and hides everything else),
 * and the exact configurations that gave no verdict for a reason not learned yet. With maskers,
 * two arrays are built: one without any masker for the combinations that do not include one,
 * and one for the combinations that do (a PASS there tests only those). With request-scope
 * factors the array covers the launch factors and each launch row runs every request-level
 * combination (covering-round-requests.ts).
 */
import type { CellResult } from './cell-result.js';
import type { Constraint, ConstraintSet } from './constraints.js';
import { buildCoveringArray } from './covering.js';
import { requestScopedRows } from './covering-round-requests.js';
import { hasRequestScope } from './request-variants.js';
import { isConclusive } from './executor.js';
import type { MatrixPlan } from './plan-compile.js';
import { configKey, configLevels, UNSET, type Config } from './space.js';
import { countingRows, testedPredicate, type FoundInteraction, type Masker } from './tested-tuples.js';

/** What the run knows when it plans a round (FailureSearch; the dry run has a plain one). */
export interface RunKnowledge {
  /** The plan's constraints, the learned ones, and `extra`. */
  constraints(extra?: readonly Constraint[]): ConstraintSet;
  found(): FoundInteraction[];
  maskers(): Masker[];
}

export interface CoveringRound {
  round: number;
  /** New configurations to launch. */
  rows: number[][];
  /** Valid combinations this round targets (not tested by any cell so far). */
  untested: number;
}

export interface RoundOptions {
  shrinkSteps?: number;
  coveringArray?: typeof buildCoveringArray;
}

const forbidLevels = (label: string, conditions: Constraint['when']): Constraint => ({ kind: 'forbid', when: conditions, then: [], label });

const holdsMaskerPartly = (partial: Config, m: Masker): boolean =>
  m.every((c) => partial[c.factor] !== UNSET && c.allowed[partial[c.factor]]);

export function coveringRound(plan: MatrixPlan, search: RunKnowledge, cells: readonly CellResult[], round: number, options: RoundOptions): CoveringRound {
  const space = plan.space;
  const found = search.found();
  const maskers = search.maskers();
  const counting = countingRows(withReference(plan, cells), found, maskers);
  const tested = testedPredicate(counting, found);
  const levelsOf = (factor: number, levels: readonly number[]) => ({ factor, allowed: space.levels[factor].map((_, v) => levels.includes(v)) });
  const avoid: Constraint[] = [
    ...found.map((it, i) => forbidLevels(`interaction ${i + 1}`, it.map((x) => levelsOf(x.factor, x.levels)))),
    // a configuration that gave no verdict for a reason not learned yet would only repeat itself
    ...cells
      .filter((c) => !isConclusive(c.outcome))
      .map((c) => forbidLevels(`no verdict in ${c.id}`, c.config.map((v, f) => levelsOf(f, [v])))),
  ];
  const build = options.coveringArray ?? buildCoveringArray;
  const parts = [
    { constraints: search.constraints([...avoid, ...maskers.map((m, i) => forbidLevels(`masker ${i + 1}`, m))]), withMasker: false },
    ...(maskers.length ? [{ constraints: search.constraints(avoid), withMasker: true }] : []),
  ];
  const known = new Set(cells.map((c) => configKey(c.config)));
  const rows: number[][] = [];
  let untested = 0;
  parts.forEach((part, p) => {
    if (!part.constraints.canExtend(space.names.map(() => UNSET))) return;
    const needed = (partial: Config) => !tested(partial) && (!part.withMasker || maskers.some((m) => holdsMaskerPartly(partial, m)));
    const neededKey = JSON.stringify([p, round, part.constraints.constraints.map((c) => c.label), counting]);
    const built = hasRequestScope(plan)
      ? requestScopedRows(plan, { constraints: part.constraints, needed }, build, { seed: plan.seed + round, neededKey, shrinkSteps: options.shrinkSteps })
      : (() => {
          const ca = build(space, {
            strength: plan.strength,
            constraints: part.constraints,
            needed,
            neededKey,
            preferredLevels: plan.baseline,
            seed: plan.seed + round,
            shrinkWork: plan.coverage.shrinkWork,
            ...(options.shrinkSteps !== undefined ? { shrinkSteps: options.shrinkSteps } : {}),
          });
          return { rows: ca.rows, untested: ca.validTuples };
        })();
    untested += built.untested;
    for (const row of built.rows) {
      const key = configKey(row);
      if (known.has(key)) continue; // already ran: launching it again would not test anything new
      known.add(key);
      rows.push(row);
    }
  });
  return { round, rows, untested };
}

/** The launched reference is a PASS by definition: it tests every combination it holds. */
export function withReference(plan: MatrixPlan, cells: readonly CellResult[]): CellResult[] {
  if (plan.reference.kind !== 'launch') return [...cells];
  const levels = configLevels(plan.space, plan.baseline);
  const reference: CellResult = {
    id: 'reference',
    phase: 'maximal',
    config: [...plan.baseline],
    levels,
    outcome: 'pass',
    probes: [],
    slot: 0,
    startedAt: '',
    durationMs: 0,
  };
  return [reference, ...cells];
}

