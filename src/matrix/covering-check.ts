/**
 * The independent checker for covering arrays: every *valid* t-tuple (one that appears in at
 * least one valid complete configuration) must appear in some row, and every row must be
 * valid. It shares no code with the generator: tuples are enumerated directly as text keys,
 * and a missing tuple is judged valid or not by brute-force search over the constrained factors
 * with nothing but the complete-configuration predicate. Generators have shipped silent
 * coverage holes (research note §3), so every array faultline produces goes through this.
 */
import type { Config, FactorSpace } from './space.js';

export interface CoverageCheck {
  strength: number;
  rows: number;
  /** Valid t-tuples in the space. */
  validTuples: number;
  /** Valid t-tuples that no row contains. */
  holes: Record<string, string>[];
  holeCount: number;
  /** Indices of rows that break a constraint or use an unknown level. */
  invalidRows: number[];
  ok: boolean;
}

export interface ValidityModel {
  isValid(config: Config): boolean;
  /** Factors that any constraint mentions; the others never affect validity. */
  constrainedFactors: readonly number[];
}

/** Largest brute-force search (configurations) spent on deciding whether one tuple is valid. */
const SEARCH_LIMIT = 1 << 22;

function* subsets(n: number, t: number): Generator<number[]> {
  const pick = Array.from({ length: t }, (_, i) => i);
  while (true) {
    yield [...pick];
    let i = t - 1;
    while (i >= 0 && pick[i] === n - t + i) i--;
    if (i < 0) return;
    pick[i]++;
    for (let j = i + 1; j < t; j++) pick[j] = pick[j - 1] + 1;
  }
}

function tupleIsValid(space: FactorSpace, model: ValidityModel, cols: number[], values: number[]): boolean {
  const free = model.constrainedFactors.filter((f) => !cols.includes(f));
  let combos = 1;
  for (const f of free) combos *= space.levels[f].length;
  if (combos > SEARCH_LIMIT) throw new Error(`coverage check: ${combos} configurations to search for one tuple; too many to verify`);
  const config = space.names.map(() => 0);
  cols.forEach((c, j) => (config[c] = values[j]));
  for (let n = 0; n < combos; n++) {
    let rest = n;
    for (const f of free) {
      config[f] = rest % space.levels[f].length;
      rest = Math.floor(rest / space.levels[f].length);
    }
    if (model.isValid(config)) return true;
  }
  return false;
}

export interface CheckOptions {
  /** Only valid tuples this returns true for count (the tuple as a partial configuration, others -1). */
  needed?: (partial: Config) => boolean;
  maxHolesListed?: number;
}

export function checkCoverage(space: FactorSpace, model: ValidityModel, strength: number, rows: readonly Config[], options: CheckOptions = {}): CoverageCheck {
  const maxHolesListed = options.maxHolesListed ?? 20;
  const k = space.names.length;
  const t = Math.min(strength, k);
  const invalidRows = rows.flatMap((row, i) =>
    row.length === k && row.every((v, f) => Number.isInteger(v) && v >= 0 && v < space.levels[f].length) && model.isValid(row)
      ? []
      : [i],
  );
  const goodRows = rows.filter((_, i) => !invalidRows.includes(i));
  const holes: Record<string, string>[] = [];
  let holeCount = 0;
  let validTuples = 0;
  for (const cols of subsets(k, t)) {
    const seen = new Set(goodRows.map((row) => cols.map((c) => row[c]).join(',')));
    const values = cols.map(() => 0);
    while (true) {
      const present = seen.has(values.join(','));
      if (options.needed && !present) {
        const partial = space.names.map(() => -1);
        cols.forEach((c, j) => (partial[c] = values[j]));
        if (!options.needed(partial)) {
          let j = t - 1;
          while (j >= 0 && ++values[j] === space.levels[cols[j]].length) values[j--] = 0;
          if (j < 0) break;
          continue;
        }
      }
      if (present || tupleIsValid(space, model, cols, values)) {
        validTuples++;
        if (!present) {
          holeCount++;
          if (holes.length < maxHolesListed)
            holes.push(Object.fromEntries(cols.map((c, j) => [space.names[c], space.levels[c][values[j]]])));
        }
      }
      let j = t - 1;
      while (j >= 0 && ++values[j] === space.levels[cols[j]].length) values[j--] = 0;
      if (j < 0) break;
    }
  }
  return { strength: t, rows: rows.length, validTuples, holes, holeCount, invalidRows, ok: holeCount === 0 && invalidRows.length === 0 };
}
