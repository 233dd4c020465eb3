/**
 * Numbering of t-way tuples for the covering-array generator: every t-subset of columns (a
 * "column set", lexicographic order) gets a block of consecutive indices, one per combination
 * of its levels (mixed radix, last column fastest). Flat integer indices let the generator keep
 * coverage counts in one typed array. The coverage *checker* deliberately does not use this.
 */
export class TupleIndex {
  readonly t: number;
  readonly sizes: readonly number[];
  /** Column sets: columns of set s are cols[s*t .. s*t+t-1], ascending. */
  readonly cols: Int32Array;
  /** Mixed-radix multipliers, parallel to cols. */
  readonly mults: Int32Array;
  /** First tuple index of each column set. */
  readonly offsets: Int32Array;
  readonly setCount: number;
  readonly total: number;
  /** Column sets containing each column. */
  readonly setsOfColumn: Int32Array[];

  constructor(sizes: readonly number[], t: number) {
    const k = sizes.length;
    if (t < 1 || t > k) throw new Error(`TupleIndex: strength ${t} with ${k} columns`);
    this.t = t;
    this.sizes = sizes;
    const sets: number[][] = [];
    const pick: number[] = [];
    const walk = (from: number): void => {
      if (pick.length === t) {
        sets.push([...pick]);
        return;
      }
      for (let c = from; c <= k - (t - pick.length); c++) {
        pick.push(c);
        walk(c + 1);
        pick.pop();
      }
    };
    walk(0);
    this.setCount = sets.length;
    this.cols = new Int32Array(sets.length * t);
    this.mults = new Int32Array(sets.length * t);
    this.offsets = new Int32Array(sets.length);
    const byColumn: number[][] = sizes.map(() => []);
    let total = 0;
    sets.forEach((set, s) => {
      this.offsets[s] = total;
      let m = 1;
      for (let j = t - 1; j >= 0; j--) {
        this.cols[s * t + j] = set[j];
        this.mults[s * t + j] = m;
        m *= sizes[set[j]];
      }
      total += m;
      for (const c of set) byColumn[c].push(s);
    });
    this.total = total;
    this.setsOfColumn = byColumn.map((list) => Int32Array.from(list));
  }

  /** Tuple index of column set s in a row; -1 when one of its cells is unset. */
  indexOf(s: number, row: ArrayLike<number>): number {
    const t = this.t;
    let idx = this.offsets[s];
    for (let j = 0; j < t; j++) {
      const v = row[this.cols[s * t + j]];
      if (v < 0) return -1;
      idx += v * this.mults[s * t + j];
    }
    return idx;
  }

  /** The column set a tuple index belongs to (binary search over offsets). */
  setOf(index: number): number {
    let lo = 0;
    let hi = this.setCount - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.offsets[mid] <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Writes the tuple's values into `row` (its columns only). */
  writeTuple(index: number, row: number[]): void {
    const s = this.setOf(index);
    let rest = index - this.offsets[s];
    for (let j = 0; j < this.t; j++) {
      const m = this.mults[s * this.t + j];
      row[this.cols[s * this.t + j]] = Math.floor(rest / m);
      rest %= m;
    }
  }

  columnsOf(s: number): number[] {
    return Array.from(this.cols.subarray(s * this.t, s * this.t + this.t));
  }
}
