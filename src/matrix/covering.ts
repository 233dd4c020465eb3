/**
 * Strength-t covering arrays with constraints, for choosing which server launches to run.
 *
 * 1. Construction, IPOG-style (Lei et al.): columns are added one at a time (most levels
 *    first); each existing row gets the value for the new column that covers the most
 *    still-uncovered tuples (horizontal growth), then tuples still uncovered get rows of their
 *    own or fill don't-care cells of compatible rows (vertical growth). Rows never break a
 *    constraint; only valid tuples are targets (ConstraintSet.canExtend is exact).
 * 2. Shrinking (covering-shrink.ts): delete the row that covers the fewest tuples alone, repair
 *    the holes by tuple-directed weighted local search, repeat; a work budget bounds it.
 * Seed rows (configurations already launched) count for coverage, are never changed and are
 * not returned: only new rows cost launches. Deterministic for a given seed and budget.
 * Every result passes the independent checker (covering-check.ts) or this throws.
 */
import { createRng, type Rng } from '../core/rng.js';
import { ConstraintSet } from './constraints.js';
import { checkCoverage } from './covering-check.js';
import { UNSET, levelCounts, type Config, type FactorSpace } from './space.js';
import { DEFAULT_SHRINK_WORK, shrinkRows, type ShrinkResult } from './covering-shrink.js';
import { TupleIndex } from './tuples.js';

export interface CoveringOptions {
  strength: number;
  constraints?: ConstraintSet;
  /** Rows already run: they count for coverage and are never returned or changed. */
  seedRows?: readonly Config[];
  /**
   * Only the valid tuples this returns true for must be covered (given as a partial configuration:
   * the tuple's factors set, the others UNSET); by default all. A matrix run passes "not tested yet".
   */
  needed?: (partial: Config) => boolean;
  /** A stable text that identifies `needed`, for callers that memoize arrays (benches). */
  neededKey?: string;
  /** Don't-care cells are filled with these levels where constraints allow (e.g. the reference). */
  preferredLevels?: readonly number[];
  seed?: number;
  /** Local-search steps for the shrinking pass at most (0: construction only; tests pin it). */
  shrinkSteps?: number;
  /** Work budget of the shrinking pass (tuple counters read; default DEFAULT_SHRINK_WORK, about a second). */
  shrinkWork?: number;
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
  /** What the shrinking pass did and why it stopped. */
  shrink: Omit<ShrinkResult, 'rows'>;
}


export function buildCoveringArray(space: FactorSpace, options: CoveringOptions): CoveringArray {
  const k = space.names.length;
  const strength = Math.min(options.strength, k);
  const constraints = options.constraints ?? new ConstraintSet(space, []);
  const seeds = (options.seedRows ?? []).map((r) => [...r]);
  for (const s of seeds) {
    if (s.length !== k || !constraints.isValid(s)) throw new Error(`buildCoveringArray: seed row ${s.join('.')} is not a valid configuration`);
  }
  if (k === 0)
    return { strength: 0, rows: [], constructedRows: 0, validTuples: 0, coveredBySeeds: 0, shrink: { steps: 0, work: 0, ms: 0, stoppedBy: 'done' } };
  const rng = createRng(options.seed ?? 1);
  const index = new TupleIndex(levelCounts(space), strength);
  const required = requiredTuples(index, constraints, options.needed);
  const built = construct(index, required, constraints, seeds, rng, options.preferredLevels);
  const { rows, ...shrink } = shrinkRows(index, required, constraints, seeds, built, rng, {
    work: options.shrinkWork ?? DEFAULT_SHRINK_WORK,
    ...(options.shrinkSteps !== undefined ? { steps: options.shrinkSteps } : {}),
  });

  const check = checkCoverage(space, constraints, strength, [...seeds, ...rows], { needed: options.needed });
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
  return { strength, rows, constructedRows: built.length, validTuples, coveredBySeeds, shrink };
}

/** 1 for each tuple that some valid configuration contains (and that `needed` asks for). */
function requiredTuples(index: TupleIndex, constraints: ConstraintSet, needed?: (partial: Config) => boolean): Uint8Array {
  const required = new Uint8Array(index.total).fill(1);
  if (constraints.isEmpty && !needed) return required;
  const constrained = new Set(constraints.constrainedFactors);
  const partial: number[] = index.sizes.map(() => UNSET);
  for (let s = 0; s < index.setCount; s++) {
    const cols = index.columnsOf(s);
    const check = cols.some((c) => constrained.has(c));
    if (!check && !needed) continue;
    const end = s + 1 < index.setCount ? index.offsets[s + 1] : index.total;
    for (let i = index.offsets[s]; i < end; i++) {
      index.writeTuple(i, partial);
      if ((check && !constraints.canExtend(partial)) || (needed && !needed(partial))) required[i] = 0;
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
  /** Active columns per column set: a set counts tuples once all t of its columns are active. */
  const activeInSet = new Uint8Array(index.setCount);
  const counts = new Int32Array(index.total);
  const rows: Row[] = seeds.map((cells) => ({ cells: [...cells], seed: true }));

  /** Activates column c; returns the column sets it completes: the targets when c joins. */
  const activate = (c: number): number[] => {
    const done: number[] = [];
    for (const s of index.setsOfColumn[c]) if (++activeInSet[s] === index.t) done.push(s);
    return done;
  };
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
      if (activeInSet[s] !== index.t) continue;
      const i = index.indexOf(s, row);
      if (i >= 0) counts[i]++;
    }
  };

  for (let step = 0; step < k; step++) {
    const c = order[step];
    const targets = activate(c);
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
