/**
 * A covering round for a plan with request-scope factors: the covering array is built over the
 * launch-scope factors only, and every launch row is probed at every request-level combination
 * (request-variants.ts) on one server — so the array counts launches for launch factors alone, and
 * a t-way combination that mixes flags and request fields is tested in whichever launch row holds
 * its flags. Constraints never mix scopes (plan loading refuses that), so the space is the product
 * of the two.
 *
 * Targets: the launch parts of the valid combinations not tested yet (tested-tuples.ts). Parts of
 * t launch factors go to the array; smaller parts (a combination with request factors in it) that
 * no new row holds get a row of their own, completed toward the reference. A cell whose full
 * configuration holds an interaction found, or breaks a constraint the round avoids, is left out.
 */
import { ConstraintSet, type Condition, type Constraint } from './constraints.js';
import type { buildCoveringArray } from './covering.js';
import { requestVariants } from './request-variants.js';
import type { MatrixPlan } from './plan-compile.js';
import { configKey, UNSET, type Config, type FactorSpace } from './space.js';

export interface RequestRoundPart {
  /** The round's constraints over the whole space (plan, learned, avoided). */
  constraints: ConstraintSet;
  /** A full-space combination this part must test. */
  needed: (partial: Config) => boolean;
}

interface Subspace {
  space: FactorSpace;
  /** Full-space factor of each subspace factor. */
  factors: number[];
}

function launchSubspace(plan: MatrixPlan): Subspace {
  const factors = plan.scopes.flatMap((s, f) => (s === 'launch' ? [f] : []));
  return { factors, space: { names: factors.map((f) => plan.space.names[f]), levels: factors.map((f) => plan.space.levels[f]) } };
}

/** The constraints that mention launch factors only, re-indexed to the subspace. */
function restrict(sub: Subspace, constraints: readonly Constraint[]): ConstraintSet {
  const at = new Map(sub.factors.map((f, i) => [f, i]));
  const inside = (c: Constraint) => [...c.when, ...c.then].every((x) => at.has(x.factor));
  const remap = (xs: readonly Condition[]) => xs.map((x) => ({ factor: at.get(x.factor) as number, allowed: x.allowed }));
  return new ConstraintSet(
    sub.space,
    constraints.filter(inside).map((c) => ({ ...c, when: remap(c.when), then: remap(c.then) })),
  );
}

/** Every valid t-way combination of the full space, as partial configurations. */
function* combinations(space: FactorSpace, t: number, valid: ConstraintSet): Generator<number[]> {
  const k = space.names.length;
  const partial: number[] = new Array(k).fill(UNSET);
  const cols: number[] = [];
  function* values(j: number): Generator<number[]> {
    if (j === cols.length) {
      if (valid.canExtend(partial)) yield [...partial];
      return;
    }
    for (let v = 0; v < space.levels[cols[j]].length; v++) {
      partial[cols[j]] = v;
      yield* values(j + 1);
    }
    partial[cols[j]] = UNSET;
  }
  function* choose(from: number): Generator<number[]> {
    if (cols.length === t) {
      yield* values(0);
      return;
    }
    for (let c = from; c <= k - (t - cols.length); c++) {
      cols.push(c);
      yield* choose(c + 1);
      cols.pop();
    }
  }
  yield* choose(0);
}

export function requestScopedRows(
  plan: MatrixPlan,
  part: RequestRoundPart,
  build: typeof buildCoveringArray,
  options: { seed: number; neededKey: string; shrinkSteps?: number },
): { rows: number[][]; untested: number } {
  const sub = launchSubspace(plan);
  const t = Math.min(plan.strength, plan.space.names.length);
  // launch parts of the untested combinations, by size
  const parts = new Map<string, number[]>();
  let untested = 0;
  for (const tuple of combinations(plan.space, t, part.constraints)) {
    if (!part.needed(tuple)) continue;
    untested++;
    const launchPart = tuple.map((v, f) => (plan.scopes[f] === 'launch' ? v : UNSET));
    parts.set(configKey(launchPart), launchPart);
  }
  if (untested === 0) return { rows: [], untested };
  const subConstraints = restrict(sub, part.constraints.constraints);
  const toSub = (full: Config) => sub.factors.map((f) => full[f]);
  const fromSub = (row: Config) => {
    const full: number[] = plan.baseline.map(() => UNSET);
    sub.factors.forEach((f, i) => (full[f] = row[i]));
    return full;
  };
  const tSub = Math.min(t, sub.factors.length);
  const fullSize = [...parts.values()].filter((p) => p.filter((v) => v !== UNSET).length === tSub);
  const wanted = new Set(fullSize.map((p) => configKey(toSub(p))));
  const launchRows: number[][] =
    wanted.size === 0 || tSub === 0
      ? []
      : build(sub.space, {
          strength: tSub,
          constraints: subConstraints,
          needed: (p) => wanted.has(configKey(p)),
          neededKey: options.neededKey,
          preferredLevels: toSub(plan.baseline),
          seed: options.seed,
          shrinkWork: plan.coverage.shrinkWork,
          ...(options.shrinkSteps !== undefined ? { shrinkSteps: options.shrinkSteps } : {}),
        }).rows;
  // smaller launch parts that no row holds: a row each, toward the reference
  for (const p of parts.values()) {
    const sp = toSub(p);
    if (launchRows.some((r) => sp.every((v, i) => v === UNSET || r[i] === v))) continue;
    const row = subConstraints.complete(sp, (i, v) => (v === toSub(plan.baseline)[i] ? 0 : 1));
    if (row) launchRows.push(row);
  }
  const rows: number[][] = [];
  for (const launchRow of launchRows) {
    const launch = fromSub(launchRow);
    for (const variant of requestVariants(plan)) {
      const config = launch.map((v, f) => (v === UNSET ? variant[f] : v));
      if (part.constraints.isValid(config)) rows.push(config);
    }
  }
  return { rows, untested };
}
