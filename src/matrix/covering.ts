/**
 * Strength-t covering arrays with constraints, for choosing which server launches to run.
 *
 * 1. Construction, IPOG-style (Lei et al.): columns are added one at a time (most levels
 *    first); each existing row gets the value for the new column that covers the most
 *    still-uncovered tuples (horizontal growth), then tuples still uncovered get rows of their
 *    own or fill don't-care cells of compatible rows (vertical growth). Rows never break a
 *    constraint; only valid tuples are targets (ConstraintSet.canExtend is exact).
 * 2. Shrinking: repeatedly delete the row that covers the fewest tuples alone, then repair the
 *    holes by tuple-directed local search (pick an uncovered tuple, write it into the row where
 *    that loses the least weighted coverage, occasional random moves; tuples left uncovered
 *    at a local optimum gain weight, so the search leaves plateaus). Success keeps
 *    the smaller array; failure within the step budget restores the last complete one.
 * Seed rows (configurations already launched) count for coverage, are never changed and are
 * not returned: only new rows cost launches. Deterministic for a given seed and budget.
 * Every result passes the independent checker (covering-check.ts) or this throws.
 */
import { createRng, type Rng } from '../core/rng.js';
import { ConstraintSet } from './constraints.js';
import { checkCoverage } from './covering-check.js';
import { UNSET, levelCounts, type Config, type FactorSpace } from './space.js';
import { TupleIndex } from './tuples.js';

export interface CoveringOptions {
  strength: number;
  constraints?: ConstraintSet;
  /** Rows already run: they count for coverage and are never returned or changed. */
  seedRows?: readonly Config[];
  /** Don't-care cells are filled with these levels where constraints allow (e.g. the reference). */
  preferredLevels?: readonly number[];
  seed?: number;
  /** Local-search steps for the shrinking pass (0: construction only). */
  shrinkSteps?: number;
}

export interface CoveringArray {
  strength: number;
  /** New rows to run, in order. */
  rows: number[][];
  /** Rows after construction, before shrinking (for reports and benches). */
  constructedRows: number;
  /** Valid t-tuples in the space (the coverage target). */
  validTuples: number;
  /** Valid t-tuples the seed rows already covered. */
  coveredBySeeds: number;
}

export const DEFAULT_SHRINK_STEPS = 20_000;
/** Share of local-search steps that move a random valid row instead of the best-priced one. */
const RANDOM_WALK = 0.01;

export function buildCoveringArray(space: FactorSpace, options: CoveringOptions): CoveringArray {
  const k = space.names.length;
  const strength = Math.min(options.strength, k);
  const constraints = options.constraints ?? new ConstraintSet(space, []);
  const seeds = (options.seedRows ?? []).map((r) => [...r]);
  for (const s of seeds) {
    if (s.length !== k || !constraints.isValid(s)) throw new Error(`buildCoveringArray: seed row ${s.join('.')} is not a valid configuration`);
  }
  if (k === 0) return { strength: 0, rows: [], constructedRows: 0, validTuples: 0, coveredBySeeds: 0 };
  const rng = createRng(options.seed ?? 1);
  const index = new TupleIndex(levelCounts(space), strength);
  const required = requiredTuples(index, constraints);
  const built = construct(index, required, constraints, seeds, rng, options.preferredLevels);
  const rows = shrink(index, required, constraints, seeds, built, rng, options.shrinkSteps ?? DEFAULT_SHRINK_STEPS);

  const check = checkCoverage(space, constraints, strength, [...seeds, ...rows]);
  if (!check.ok) {
    throw new Error(
      `covering array failed the independent check: ${check.holeCount} valid tuples uncovered, invalid rows ${check.invalidRows.join(',')}`,
    );
  }
  let coveredBySeeds = 0;
  const counts = coverageCounts(index, seeds);
  for (let i = 0; i < index.total; i++) if (required[i] && counts[i] > 0) coveredBySeeds++;
  let validTuples = 0;
  for (let i = 0; i < index.total; i++) validTuples += required[i];
  return { strength, rows, constructedRows: built.length, validTuples, coveredBySeeds };
}

/** 1 for each tuple that some valid configuration contains. */
function requiredTuples(index: TupleIndex, constraints: ConstraintSet): Uint8Array {
  const required = new Uint8Array(index.total).fill(1);
  if (constraints.isEmpty) return required;
  const constrained = new Set(constraints.constrainedFactors);
  const partial: number[] = index.sizes.map(() => UNSET);
  for (let s = 0; s < index.setCount; s++) {
    const cols = index.columnsOf(s);
    if (!cols.some((c) => constrained.has(c))) continue;
    const end = s + 1 < index.setCount ? index.offsets[s + 1] : index.total;
    for (let i = index.offsets[s]; i < end; i++) {
      index.writeTuple(i, partial);
      if (!constraints.canExtend(partial)) required[i] = 0;
    }
    for (const c of cols) partial[c] = UNSET;
  }
  return required;
}

function coverageCounts(index: TupleIndex, rows: readonly ArrayLike<number>[]): Int32Array {
  const counts = new Int32Array(index.total);
  for (const row of rows) {
    for (let s = 0; s < index.setCount; s++) {
      const i = index.indexOf(s, row);
      if (i >= 0) counts[i]++;
    }
  }
  return counts;
}

interface Row {
  cells: number[];
  seed: boolean;
}

function construct(
  index: TupleIndex,
  required: Uint8Array,
  constraints: ConstraintSet,
  seeds: number[][],
  rng: Rng,
  preferred: readonly number[] | undefined,
): number[][] {
  const k = index.sizes.length;
  // Most levels first (IPOG's order); ties keep plan order.
  const order = [...index.sizes.keys()].sort((a, b) => index.sizes[b] - index.sizes[a] || a - b);
  const active = new Uint8Array(k);
  const counts = new Int32Array(index.total);
  const rows: Row[] = seeds.map((cells) => ({ cells: [...cells], seed: true }));

  /** Column sets containing c whose other columns are all active: the targets when c joins. */
  const targetsOf = (c: number): number[] =>
    Array.from(index.setsOfColumn[c]).filter((s) => index.columnsOf(s).every((x) => x === c || active[x]));
  const countRow = (row: number[], sets: number[]): void => {
    for (const s of sets) {
      const i = index.indexOf(s, row);
      if (i >= 0) counts[i]++;
    }
  };
  /** Set a don't-care cell and count the tuples it completes among active columns. */
  const setCell = (row: number[], c: number, v: number): void => {
    row[c] = v;
    for (const s of index.setsOfColumn[c]) {
      if (!index.columnsOf(s).every((x) => active[x])) continue;
      const i = index.indexOf(s, row);
      if (i >= 0) counts[i]++;
    }
  };

  for (let step = 0; step < k; step++) {
    const c = order[step];
    const targets = targetsOf(c);
    active[c] = 1;
    if (targets.length === 0) continue; // fewer than t active columns yet
    for (const r of rows) if (r.seed) countRow(r.cells, targets);

    // Horizontal growth: each non-seed row takes the value for c that covers the most new tuples.
    for (const r of rows) {
      if (r.seed) continue;
      let best: number[] = [];
      let bestGain = 0;
      for (let v = 0; v < index.sizes[c]; v++) {
        r.cells[c] = v;
        let gain = 0;
        for (const s of targets) {
          const i = index.indexOf(s, r.cells);
          if (i >= 0 && required[i] && counts[i] === 0) gain++;
        }
        if (gain > 0 && constraints.canExtend(r.cells)) {
          if (gain > bestGain) {
            bestGain = gain;
            best = [v];
          } else if (gain === bestGain) best.push(v);
        }
      }
      r.cells[c] = UNSET;
      // No gain: leave a don't-care for vertical growth or the final fill.
      if (best.length > 0) setCell(r.cells, c, best[rng.int(best.length)]);
    }

    // Vertical growth: every still-uncovered valid tuple goes into a compatible row or a new one.
    for (const s of targets) {
      const cols = index.columnsOf(s);
      const end = s + 1 < index.setCount ? index.offsets[s + 1] : index.total;
      const tuple: number[] = new Array(k).fill(UNSET);
      for (let i = index.offsets[s]; i < end; i++) {
        if (!required[i] || counts[i] > 0) continue;
        index.writeTuple(i, tuple);
        let placed = false;
        for (const r of rows) {
          if (r.seed || !cols.every((x) => r.cells[x] === UNSET || r.cells[x] === tuple[x])) continue;
          const open = cols.filter((x) => r.cells[x] === UNSET);
          for (const x of open) r.cells[x] = tuple[x];
          const ok = constraints.canExtend(r.cells);
          for (const x of open) r.cells[x] = UNSET;
          if (!ok) continue;
          for (const x of open) setCell(r.cells, x, tuple[x]);
          placed = true;
          break;
        }
        if (!placed) {
          const cells: number[] = new Array(k).fill(UNSET);
          rows.push({ cells, seed: false });
          for (const x of cols) setCell(cells, x, tuple[x]);
        }
      }
    }
  }

  // Fill don't-cares with the preferred (reference) levels where constraints allow.
  const fill = (f: number, v: number): number => (preferred && preferred[f] === v ? 0 : 1 + v / 1024);
  const out: number[][] = [];
  for (const r of rows) {
    if (r.seed) continue;
    const full = r.cells.includes(UNSET) ? constraints.complete(r.cells, fill) : r.cells;
    if (!full) throw new Error('covering array construction: a row lost its valid completion');
    out.push(full);
  }
  return out;
}

/** Uncovered-tuple set with O(1) add, remove and random pick. */
class TupleSet {
  readonly items: number[] = [];
  private readonly pos: Int32Array;
  constructor(total: number) {
    this.pos = new Int32Array(total).fill(-1);
  }
  add(i: number): void {
    if (this.pos[i] >= 0) return;
    this.pos[i] = this.items.length;
    this.items.push(i);
  }
  remove(i: number): void {
    const p = this.pos[i];
    if (p < 0) return;
    const last = this.items.pop() as number;
    if (last !== i) {
      this.items[p] = last;
      this.pos[last] = p;
    }
    this.pos[i] = -1;
  }
  get size(): number {
    return this.items.length;
  }
}

function shrink(
  index: TupleIndex,
  required: Uint8Array,
  constraints: ConstraintSet,
  seeds: number[][],
  start: number[][],
  rng: Rng,
  budget: number,
): number[][] {
  if (budget <= 0 || start.length === 0) return start;
  const t = index.t;
  const k = index.sizes.length;
  let rows = start.map((r) => [...r]);
  let best = rows.map((r) => [...r]);
  let counts = coverageCounts(index, [...seeds, ...rows]);
  const uncovered = new TupleSet(index.total);
  const changed = new Int32Array(k).fill(-1); // stamp per column: changed in the move being priced
  let stamp = 0;
  const tuple: number[] = new Array(k).fill(UNSET);
  const candidate: number[] = new Array(k);
  const moved = new Int32Array(t);
  // Tuple weights (as in weighted local search for SAT and covering arrays): a tuple that stays
  // uncovered at a local optimum gets heavier, so the search leaves plateaus.
  const weights = new Int32Array(index.total).fill(1);

  const { cols: setCols, mults, offsets, setsOfColumn } = index;
  /**
   * Walks the column sets a move from `row` to `next` touches (each once, from its smallest
   * changed column). mode 0: returns the change in covered valid tuples; mode 1: applies it.
   */
  const walkMove = (row: number[], next: number[], moved: Int32Array, nMoved: number, mode: 0 | 1): number => {
    stamp++;
    for (let m = 0; m < nMoved; m++) changed[moved[m]] = stamp;
    let score = 0;
    for (let m = 0; m < nMoved; m++) {
      const c = moved[m];
      const sets = setsOfColumn[c];
      for (let n = 0; n < sets.length; n++) {
        const s = sets[n];
        const base = s * t;
        let oldI = offsets[s];
        let newI = oldI;
        let skip = false;
        for (let j = 0; j < t; j++) {
          const x = setCols[base + j];
          if (x < c && changed[x] === stamp) {
            skip = true;
            break;
          }
          oldI += row[x] * mults[base + j];
          newI += next[x] * mults[base + j];
        }
        if (skip) continue;
        if (mode === 0) {
          if (counts[oldI] === 1 && required[oldI]) score -= weights[oldI];
          if (counts[newI] === 0 && required[newI]) score += weights[newI];
        } else {
          if (--counts[oldI] === 0 && required[oldI]) uncovered.add(oldI);
          if (counts[newI]++ === 0) uncovered.remove(newI);
        }
      }
    }
    return score;
  };

  const removeRow = (r: number): void => {
    const row = rows[r];
    for (let s = 0; s < index.setCount; s++) {
      const i = index.indexOf(s, row);
      if (--counts[i] === 0 && required[i]) uncovered.add(i);
    }
    rows.splice(r, 1);
  };

  const uniqueCoverage = (row: number[]): number => {
    let n = 0;
    for (let s = 0; s < index.setCount; s++) {
      const i = index.indexOf(s, row);
      if (counts[i] === 1 && required[i]) n++;
    }
    return n;
  };

  let step = 0;
  while (step < budget && rows.length > 0) {
    // Delete the row that the others nearly cover already.
    let victim = 0;
    let fewest = Infinity;
    rows.forEach((row, r) => {
      const u = uniqueCoverage(row);
      if (u < fewest) {
        fewest = u;
        victim = r;
      }
    });
    removeRow(victim);
    while (uncovered.size > 0 && step < budget) {
      step++;
      const target = uncovered.items[rng.int(uncovered.size)];
      tuple.fill(UNSET);
      index.writeTuple(target, tuple);
      const targetSet = index.setOf(target);
      let bestRow = -1;
      let bestScore = -Infinity;
      let ties = 0;
      const walk = rng.next() < RANDOM_WALK;
      const startAt = rng.int(rows.length);
      for (let n = 0; n < rows.length; n++) {
        const r = (startAt + n) % rows.length;
        const row = rows[r];
        let nMoved = 0;
        for (let j = 0; j < t; j++) {
          const c = setCols[targetSet * t + j];
          if (row[c] !== tuple[c]) moved[nMoved++] = c;
        }
        for (let c = 0; c < k; c++) candidate[c] = row[c];
        for (let m = 0; m < nMoved; m++) candidate[moved[m]] = tuple[moved[m]];
        if (!constraints.isEmpty && !constraints.isValid(candidate)) continue;
        // A random walk takes any valid row; otherwise the best-scoring one (ties at random).
        const score = walk ? rng.next() : walkMove(row, candidate, moved, nMoved, 0);
        if (score > bestScore) {
          bestScore = score;
          bestRow = r;
          ties = 1;
        } else if (score === bestScore && rng.int(++ties) === 0) bestRow = r;
      }
      if (bestRow < 0) continue;
      const row = rows[bestRow];
      let nMoved = 0;
      for (let j = 0; j < t; j++) {
        const c = setCols[targetSet * t + j];
        if (row[c] !== tuple[c]) moved[nMoved++] = c;
      }
      const next = [...row];
      for (let m = 0; m < nMoved; m++) next[moved[m]] = tuple[moved[m]];
      if (bestScore <= 0) for (const u of uncovered.items) weights[u]++;
      walkMove(row, next, moved, nMoved, 1);
      rows[bestRow] = next;
    }
    if (uncovered.size === 0) {
      best = rows.map((r) => [...r]);
    } else {
      // Out of budget with holes: the last complete array stands.
      rows = best.map((r) => [...r]);
      counts = coverageCounts(index, [...seeds, ...rows]);
      break;
    }
  }
  return best;
}
