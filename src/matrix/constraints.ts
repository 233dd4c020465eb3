/**
 * PICT-like constraints over a factor space: forbidden combinations ("never A=x with B=y") and
 * implications ("if A=x then B ∈ {y, z}"). Each side is a conjunction of `factor ∈ levels`.
 *
 * Partial configurations are evaluated in Kleene three-valued logic (an unset factor is
 * "unknown"), so a generator can reject a partial row as soon as it is certainly invalid, and
 * `canExtend` answers exactly whether some complete valid configuration contains it — the
 * definition of a *valid* t-tuple that a covering array must cover.
 */
import { UNSET, type Config, type FactorSpace } from './space.js';
import type { SourceLocation } from '../core/errors.js';

/** `factor ∈ allowed levels`. */
export interface Condition {
  factor: number;
  allowed: readonly boolean[];
}

export interface Constraint {
  kind: 'forbid' | 'implies';
  /** forbid: the forbidden conjunction; implies: the premise. */
  when: readonly Condition[];
  /** implies: the conclusion (a conjunction); forbid: empty. */
  then: readonly Condition[];
  /** Human text, e.g. "if spec=ngram then prefix=on". */
  label: string;
  at?: SourceLocation;
}

type Tri = 0 | 1 | 2; // false, true, unknown
const F: Tri = 0;
const T: Tri = 1;
const U: Tri = 2;

function conj(conds: readonly Condition[], config: Config): Tri {
  let result: Tri = T;
  for (const c of conds) {
    const v = config[c.factor];
    if (v === UNSET) result = U;
    else if (!c.allowed[v]) return F;
  }
  return result;
}

/** Whether the constraint holds: true, false, or unknown while factors are unset. */
export function evaluateConstraint(c: Constraint, config: Config): Tri {
  const when = conj(c.when, config);
  if (c.kind === 'forbid') return when === U ? U : when === T ? F : T;
  if (when === F) return T;
  const then = conj(c.then, config);
  if (then === T) return T;
  if (when === T && then === F) return F;
  return U;
}

export function constraintFactors(c: Constraint): number[] {
  return [...new Set([...c.when, ...c.then].map((x) => x.factor))].sort((a, b) => a - b);
}

export class ConstraintSet {
  readonly space: FactorSpace;
  readonly constraints: readonly Constraint[];
  /** Factors that appear in at least one constraint, ascending. */
  readonly constrainedFactors: readonly number[];
  private readonly byFactor: Constraint[][];

  constructor(space: FactorSpace, constraints: readonly Constraint[]) {
    this.space = space;
    this.constraints = constraints;
    this.byFactor = space.names.map(() => []);
    for (const c of constraints) for (const f of constraintFactors(c)) this.byFactor[f].push(c);
    this.constrainedFactors = this.byFactor.flatMap((list, f) => (list.length ? [f] : []));
  }

  get isEmpty(): boolean {
    return this.constraints.length === 0;
  }

  /** A complete configuration satisfies every constraint. */
  isValid(config: Config): boolean {
    return this.constraints.every((c) => evaluateConstraint(c, config) === T);
  }

  /** Some constraint is certainly broken by the factors already set. */
  violates(config: Config): boolean {
    return this.constraints.some((c) => evaluateConstraint(c, config) === F);
  }

  /** The first constraint certainly broken, for messages. */
  firstViolated(config: Config): Constraint | undefined {
    return this.constraints.find((c) => evaluateConstraint(c, config) === F);
  }

  private violatesAt(config: Config, factor: number): boolean {
    for (const c of this.byFactor[factor]) if (evaluateConstraint(c, config) === F) return true;
    return false;
  }

  /** Exactly: does a complete valid configuration agreeing with every set factor exist? */
  canExtend(partial: Config): boolean {
    if (this.constraints.length === 0) return true;
    if (this.violates(partial)) return false;
    const open = this.constrainedFactors.filter((f) => partial[f] === UNSET);
    const work = [...partial];
    const search = (i: number): boolean => {
      if (i === open.length) return true;
      const f = open[i];
      for (let v = 0; v < this.space.levels[f].length; v++) {
        work[f] = v;
        if (!this.violatesAt(work, f) && search(i + 1)) return true;
      }
      work[f] = UNSET;
      return false;
    };
    return search(0);
  }

  /**
   * The cheapest complete valid configuration that keeps every set factor of `partial`, where
   * cost(f, v) prices choosing level v for an unset factor f (ties: lower level index first).
   * Branch and bound over the constrained factors; unconstrained ones just take their cheapest level.
   * Returns undefined when no valid completion exists.
   */
  complete(partial: Config, cost: (factor: number, level: number) => number): number[] | undefined {
    const out = [...partial];
    const cheapest = (f: number): number[] =>
      [...this.space.levels[f].keys()].sort((a, b) => cost(f, a) - cost(f, b) || a - b);
    for (let f = 0; f < out.length; f++) {
      if (out[f] === UNSET && this.byFactor[f].length === 0) out[f] = cheapest(f)[0];
    }
    if (this.violates(out)) return undefined;
    const open = this.constrainedFactors.filter((f) => out[f] === UNSET);
    if (open.length === 0) return out;
    const orders = open.map(cheapest);
    const floor = open.map((f, i) => cost(f, orders[i][0]));
    // remaining[i] = the least possible cost of factors open[i..]: an admissible bound.
    const remaining = new Array<number>(open.length + 1).fill(0);
    for (let i = open.length - 1; i >= 0; i--) remaining[i] = remaining[i + 1] + floor[i];
    let best: number[] | undefined;
    let bestCost = Infinity;
    const work = [...out];
    const search = (i: number, spent: number): void => {
      if (spent + remaining[i] >= bestCost) return;
      if (i === open.length) {
        best = [...work];
        bestCost = spent;
        return;
      }
      const f = open[i];
      for (const v of orders[i]) {
        work[f] = v;
        if (!this.violatesAt(work, f)) search(i + 1, spent + cost(f, v));
      }
      work[f] = UNSET;
    };
    search(0, 0);
    return best;
  }

  /** Number of valid complete configurations (exhaustive testing would need this many launches). */
  countValid(): number {
    const unconstrained = this.space.levels.reduce(
      (n, l, f) => (this.byFactor[f].length === 0 ? n * l.length : n),
      1,
    );
    const open = this.constrainedFactors;
    const work: number[] = this.space.names.map(() => UNSET);
    const count = (i: number): number => {
      if (i === open.length) return 1;
      const f = open[i];
      let n = 0;
      for (let v = 0; v < this.space.levels[f].length; v++) {
        work[f] = v;
        if (!this.violatesAt(work, f)) n += count(i + 1);
      }
      work[f] = UNSET;
      return n;
    };
    return unconstrained * count(0);
  }
}

/** What makes a constraint set unusable, with the constraint to blame. */
export type ConstraintProblem =
  | { kind: 'unsatisfiable'; culprit: Constraint }
  | { kind: 'dead-level'; factor: number; level: number; culprit: Constraint };

/**
 * Finds constraints that leave no valid configuration, or that make a level impossible to
 * choose (a plan mistake: that level would never be tested). The culprit is the first
 * constraint, in plan order, whose addition causes the problem.
 */
export function findConstraintProblems(space: FactorSpace, constraints: readonly Constraint[]): ConstraintProblem[] {
  const all = new ConstraintSet(space, constraints);
  const empty = space.names.map(() => UNSET);
  const firstCulprit = (partial: Config): Constraint => {
    for (let i = 1; i <= constraints.length; i++) {
      if (!new ConstraintSet(space, constraints.slice(0, i)).canExtend(partial)) return constraints[i - 1];
    }
    throw new Error('findConstraintProblems: no culprit for an unextendable configuration');
  };
  if (!all.canExtend(empty)) return [{ kind: 'unsatisfiable', culprit: firstCulprit(empty) }];
  const problems: ConstraintProblem[] = [];
  for (const f of all.constrainedFactors) {
    for (let v = 0; v < space.levels[f].length; v++) {
      const partial = [...empty];
      partial[f] = v;
      if (!all.canExtend(partial)) problems.push({ kind: 'dead-level', factor: f, level: v, culprit: firstCulprit(partial) });
    }
  }
  return problems;
}
