/**
 * The shrinking pass of the covering-array generator: repeatedly delete the row that covers the
 * fewest tuples alone, then repair the holes by tuple-directed local search, keeping the smaller
 * array when the repair succeeds and the last complete one when the budget runs out.
 *
 * One repair step picks an uncovered tuple and writes it into one row. Only the rows closest to
 * the tuple (fewest cells to change) are priced: a one-cell move touches the C(k−1, t−1) column
 * sets of that cell and nothing else, and each row's tuple index per column set is cached, so a
 * price is one pass over those sets with two counter reads each. The price is the weighted
 * change in covered valid tuples. When no move gains, the tuple being placed gains weight (now
 * and then every open tuple does), so the search leaves the plateau toward it (weighted local
 * search, as for SAT and covering arrays); a small share of steps moves a random close row
 * instead of the best one.
 *
 * The budget is *work* — tuple counters read — so it is deterministic and about proportional to
 * time on any space (each step is also charged STEP_WORK for what it does besides). A repair that
 * takes four times the work of the last success, and at least GIVE_UP_WORK_PER_TUPLE per tuple of
 * the space, ends the pass early: the next smaller size is rarely that close, and small spaces
 * would otherwise spend the whole budget below their optimum.
 */
import type { Rng } from '../core/rng.js';
import type { ConstraintSet } from './constraints.js';
import type { TupleIndex } from './tuples.js';

export interface ShrinkBudget {
  /** Tuple counters read, at most (pricing moves, scanning rows). */
  work: number;
  /** Local-search steps at most (tests pin this). */
  steps?: number;
}

export interface ShrinkResult {
  rows: number[][];
  steps: number;
  work: number;
  ms: number;
  /** budget: work or steps ran out; gave-up: the repair stalled; done: nothing left to delete. */
  stoppedBy: 'budget' | 'gave-up' | 'done';
}

/** Work of about one second on one quiet core for 20 binary factors at t = 4. */
export const DEFAULT_SHRINK_WORK = 80_000_000;
/**
 * A repair is abandoned after this much work per tuple of the space at least (see the header)...
 * 10 000 let 2^20 at t = 3 reach 20 rows and 2^14 reach 16 (1000 and 3000 stopped a row short);
 * spaces that small then take well under a second.
 */
const GIVE_UP_WORK_PER_TUPLE = 10_000;
const GIVE_UP_WORK_MIN = 2_000_000;
/** Work charged per step besides the counters it reads (picking the tuple, scanning rows): about a microsecond. */
const STEP_WORK = 64;
/** ... and after this many times the work of the last successful repair. */
const GIVE_UP_FACTOR = 4;
/**
 * When no move gains, the stuck tuple gains weight; this share of those times every open tuple
 * does. Measured on 2^20 (t = 3, 4), 2^40 (t = 3), 2^16 (t = 4) and mixed models, seeds 1–3: target
 * only reached 54–55 rows at t = 4 k = 20 where every-tuple weighting reached 55–56, but stalled at
 * 21 rows for t = 3 k = 20; mixing in 5 % reached 20 and 54 there.
 */
const RAISE_ALL = 0.05;

/** Share of local-search steps that move a random close row instead of the best-priced one. */
const RANDOM_WALK = 0.01;

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

const NOT_REQUIRED = 1 << 24;

/** Price of changing one cell: the weighted tuples it would cover minus those it alone covered. */
function priceOneCell(ri: Int32Array, sets: Int32Array, mults: Int32Array, delta: number, counts: Int32Array, weights: Int32Array): number {
  let score = 0;
  for (let n = 0; n < sets.length; n++) {
    const old = ri[sets[n]];
    const nw = old + delta * mults[n];
    if (counts[old] === 1) score -= weights[old];
    if (counts[nw] === 0) score += weights[nw];
  }
  return score;
}

/** For each column, the multiplier it has in each of its column sets (parallel to setsOfColumn). */
function columnMultipliers(index: TupleIndex): Int32Array[] {
  const t = index.t;
  return index.setsOfColumn.map((sets, c) =>
    Int32Array.from(sets, (s) => {
      for (let j = 0; j < t; j++) if (index.cols[s * t + j] === c) return index.mults[s * t + j];
      throw new Error('covering shrink: a column set does not contain its column');
    }),
  );
}

export function shrinkRows(
  index: TupleIndex,
  required: Uint8Array,
  constraints: ConstraintSet,
  seeds: readonly (readonly number[])[],
  start: readonly (readonly number[])[],
  rng: Rng,
  budget: ShrinkBudget,
): ShrinkResult {
  const began = performance.now();
  const maxSteps = budget.steps ?? Infinity;
  if (maxSteps <= 0 || budget.work <= 0 || start.length === 0)
    return { rows: start.map((r) => [...r]), steps: 0, work: 0, ms: 0, stoppedBy: 'budget' };
  const t = index.t;
  const k = index.sizes.length;
  const S = index.setCount;
  const { cols: setCols, mults: setMults, setsOfColumn } = index;
  const multsOfColumn = columnMultipliers(index);
  const constrained = !constraints.isEmpty;

  // Tuples no valid configuration holds start far above zero, so the "covered once" and "uncovered"
  // tests below never fire for them and need no second array.
  const counts = new Int32Array(index.total);
  for (let i = 0; i < index.total; i++) if (!required[i]) counts[i] = NOT_REQUIRED;
  const weights = new Int32Array(index.total).fill(1);
  const uncovered = new TupleSet(index.total);
  const tupleIndexes = (row: ArrayLike<number>): Int32Array => {
    const out = new Int32Array(S);
    for (let s = 0; s < S; s++) out[s] = index.indexOf(s, row);
    return out;
  };
  for (const seed of seeds) for (const i of tupleIndexes(seed)) counts[i]++;

  const rows = start.map((r) => Int32Array.from(r));
  const idx = rows.map(tupleIndexes);
  for (const r of idx) for (let s = 0; s < S; s++) counts[r[s]]++;
  let best = rows.map((r) => Array.from(r));

  const removeRow = (r: number): void => {
    const gone = idx[r];
    for (let s = 0; s < S; s++) if (--counts[gone[s]] === 0) uncovered.add(gone[s]);
    rows[r] = rows[rows.length - 1];
    idx[r] = idx[idx.length - 1];
    rows.pop();
    idx.pop();
  };
  const uniqueCoverage = (r: number): number => {
    const ri = idx[r];
    let n = 0;
    for (let s = 0; s < S; s++) if (counts[ri[s]] === 1) n++;
    return n;
  };

  const tupleCol = new Int32Array(t);
  const tupleVal = new Int32Array(t);
  const moved = new Int32Array(t);
  const movedTo = new Int32Array(k).fill(-1); // new level of a moved column, -1 when unmoved
  const candidate: number[] = new Array(k).fill(0);
  const close: number[] = [];

  /** New tuple index of column set s after the move described by movedTo (general path). */
  const movedIndex = (row: Int32Array, ri: Int32Array, s: number): number => {
    let i = ri[s];
    for (let j = 0; j < t; j++) {
      const x = setCols[s * t + j];
      if (movedTo[x] >= 0) i += (movedTo[x] - row[x]) * setMults[s * t + j];
    }
    return i;
  };
  /** Weighted change in covered valid tuples if row r took the move (apply: false), or applies it. */
  const walkMove = (r: number, nMoved: number, apply: boolean): number => {
    const row = rows[r];
    const ri = idx[r];
    if (nMoved === 1 && !apply) {
      const c = moved[0];
      work += setsOfColumn[c].length;
      return priceOneCell(ri, setsOfColumn[c], multsOfColumn[c], movedTo[c] - row[c], counts, weights);
    }
    let score = 0;
    for (let m = 0; m < nMoved; m++) {
      const c = moved[m];
      const sets = setsOfColumn[c];
      work += sets.length;
      for (let n = 0; n < sets.length; n++) {
        const s = sets[n];
        // a set holding several moved columns is handled once, from its smallest moved column
        let skip = false;
        for (let j = 0; j < t; j++) {
          const x = setCols[s * t + j];
          if (x < c && movedTo[x] >= 0) {
            skip = true;
            break;
          }
        }
        if (skip) continue;
        const nw = movedIndex(row, ri, s);
        const old = ri[s];
        if (!apply) {
          if (counts[old] === 1) score -= weights[old];
          if (counts[nw] === 0) score += weights[nw];
        } else {
          if (--counts[old] === 0) uncovered.add(old);
          if (counts[nw]++ === 0) uncovered.remove(nw);
          ri[s] = nw;
        }
      }
    }
    if (apply) for (let m = 0; m < nMoved; m++) row[moved[m]] = movedTo[moved[m]];
    return score;
  };
  /** Marks the cells row r must change to hold the target tuple; returns how many. */
  const markMove = (r: number): number => {
    const row = rows[r];
    let n = 0;
    for (let j = 0; j < t; j++) {
      const c = tupleCol[j];
      if (row[c] !== tupleVal[j]) {
        moved[n++] = c;
        movedTo[c] = tupleVal[j];
      }
    }
    return n;
  };
  const unmark = (n: number): void => {
    for (let m = 0; m < n; m++) movedTo[moved[m]] = -1;
  };
  const validAfter = (r: number): boolean => {
    if (!constrained) return true;
    const row = rows[r];
    for (let c = 0; c < k; c++) candidate[c] = movedTo[c] >= 0 ? movedTo[c] : row[c];
    return constraints.isValid(candidate);
  };

  let step = 0;
  let work = 0;
  let stoppedBy: ShrinkResult['stoppedBy'] = 'budget';
  let lastRepairWork = 0;
  const giveUpWork = Math.max(GIVE_UP_WORK_MIN, GIVE_UP_WORK_PER_TUPLE * index.total);
  // When every tuple is wanted, no array is smaller than the product of the t largest level counts
  // (each tuple of those columns needs a row of its own, seeds included).
  const everyTuple = required.every((x) => x === 1);
  const floor = everyTuple ? Math.max(0, [...index.sizes].sort((a, b) => b - a).slice(0, t).reduce((n, x) => n * x, 1) - seeds.length) : 0;
  if (rows.length <= floor) stoppedBy = 'done';
  outer: while (rows.length > floor) {
    // Delete the row that the others nearly cover already.
    let victim = 0;
    let fewest = Infinity;
    for (let r = 0; r < rows.length; r++) {
      const u = uniqueCoverage(r);
      if (u < fewest) {
        fewest = u;
        victim = r;
      }
    }
    removeRow(victim);
    const repairFrom = work;
    while (uncovered.size > 0) {
      if (step >= maxSteps || work >= budget.work) break outer;
      if (work - repairFrom > Math.max(giveUpWork, GIVE_UP_FACTOR * lastRepairWork)) {
        stoppedBy = 'gave-up';
        break outer;
      }
      step++;
      const target = uncovered.items[rng.int(uncovered.size)];
      const targetSet = index.setOf(target);
      let rest = target - index.offsets[targetSet];
      for (let j = 0; j < t; j++) {
        const m = setMults[targetSet * t + j];
        tupleCol[j] = setCols[targetSet * t + j];
        tupleVal[j] = Math.floor(rest / m);
        rest %= m;
      }
      // The rows that need the fewest changed cells to hold the tuple.
      let nearest = t + 1;
      close.length = 0;
      work += STEP_WORK + rows.length * t;
      for (let r = 0; r < rows.length; r++) {
        let d = 0;
        const row = rows[r];
        for (let j = 0; j < t; j++) if (row[tupleCol[j]] !== tupleVal[j]) d++;
        if (d > nearest) continue;
        const n = markMove(r);
        const ok = validAfter(r);
        unmark(n);
        if (!ok) continue;
        if (d < nearest) {
          nearest = d;
          close.length = 0;
        }
        close.push(r);
      }
      if (close.length === 0) continue;
      let bestRow = -1;
      let bestScore = -Infinity;
      if (rng.next() < RANDOM_WALK) {
        bestRow = close[rng.int(close.length)];
        bestScore = 0;
      } else {
        let ties = 0;
        const from = rng.int(close.length);
        for (let n = 0; n < close.length; n++) {
          const r = close[(from + n) % close.length];
          const nMoved = markMove(r);
          const score = walkMove(r, nMoved, false);
          unmark(nMoved);
          if (score > bestScore) {
            bestScore = score;
            bestRow = r;
            ties = 1;
          } else if (score === bestScore && rng.int(++ties) === 0) bestRow = r;
        }
      }
      if (bestScore <= 0) {
        if (rng.next() < RAISE_ALL) for (const u of uncovered.items) weights[u]++;
        else weights[target]++;
      }
      const nMoved = markMove(bestRow);
      walkMove(bestRow, nMoved, true);
      unmark(nMoved);
    }
    best = rows.map((r) => Array.from(r));
    lastRepairWork = work - repairFrom;
    if (rows.length <= floor) {
      stoppedBy = 'done';
      break;
    }
  }
  return { rows: best, steps: step, work, ms: performance.now() - began, stoppedBy };
}
