/**
 * Which t-way combinations a run has actually tested — the coverage a covering round must
 * complete, and what the report says was left untested or untestable, and why.
 *
 * A cell tests the combinations it holds only when its verdict could have shown a fault in them
 * (masking effects, research note §4: Fögen & Lichter; Yilmaz et al.):
 * - no verdict (launch failed, probe error, timeout): nothing;
 * - PASS: every combination — except that a *masker* present in the row (a level known to hide
 *   other faults, declared by the plan or learned by the run) leaves only the combinations that
 *   include it: a fault elsewhere in the row could have been hidden;
 * - FAIL explained by an interaction found: only the combinations holding that whole interaction
 *   (they are known to fail); the fault hides everything else in the row;
 * - FAIL not explained (not localized, or inconclusive): every combination, as a row with a
 *   verdict that the report lists as unexplained.
 * Combinations holding a found interaction are tested by inference: they fail.
 */
import type { CellResult } from './cell-result.js';
import { ConstraintSet, type Condition } from './constraints.js';
import type { Assignment } from './localize.js';
import { UNSET, type Config, type FactorSpace } from './space.js';

/** An interaction found, as the levels of each of its factors that fail (level generalization). */
export interface FailingLevels {
  factor: number;
  levels: readonly number[];
}
export type FoundInteraction = readonly FailingLevels[];

/** A masker: a conjunction of `factor ∈ levels` (usually one level). */
export type Masker = readonly Condition[];

/** A conclusive cell and the factors a combination must include to be tested by it ([] = any). */
export interface CountingRow {
  config: Config;
  mustInclude: readonly number[];
}

export const holdsInteraction = (config: Config, it: FoundInteraction): boolean =>
  it.every((x) => config[x.factor] !== UNSET && x.levels.includes(config[x.factor]));
const holdsMasker = (config: Config, m: Masker): boolean => m.every((c) => c.allowed[config[c.factor]]);

export function countingRows(cells: readonly CellResult[], found: readonly FoundInteraction[], maskers: readonly Masker[]): CountingRow[] {
  return cells.flatMap((cell): CountingRow[] => {
    if (cell.outcome === 'pass') {
      const mustInclude = [...new Set(maskers.filter((m) => holdsMasker(cell.config, m)).flatMap((m) => m.map((c) => c.factor)))];
      return [{ config: cell.config, mustInclude }];
    }
    if (cell.outcome !== 'corrupt') return [];
    const by = found.find((it) => holdsInteraction(cell.config, it));
    return [{ config: cell.config, mustInclude: by ? by.map((x) => x.factor) : [] }];
  });
}

/**
 * Maskers the run learned: for an interaction found, the PASS launches that hold it must hide it
 * with a level none of its failing launches has. When the PASS launches share exactly one such
 * level (outside the interaction, off the reference), it is learned.
 */
export function learnMaskers(cells: readonly CellResult[], found: readonly FoundInteraction[], reference: Config): Assignment[] {
  const out = new Map<string, Assignment>();
  for (const it of found) {
    const inIt = new Set(it.map((x) => x.factor));
    const holding = cells.filter((c) => holdsInteraction(c.config, it));
    const passed = holding.filter((c) => c.outcome === 'pass');
    if (passed.length === 0) continue;
    const seenFailing = new Set(holding.filter((c) => c.outcome === 'corrupt').flatMap((c) => c.config.map((v, f) => `${f}=${v}`)));
    const suspects = (c: CellResult) =>
      c.config.flatMap((v, f) => (inIt.has(f) || v === reference[f] || seenFailing.has(`${f}=${v}`) ? [] : [`${f}=${v}`]));
    let common = new Set(suspects(passed[0]));
    for (const c of passed.slice(1)) {
      const mine = new Set(suspects(c));
      common = new Set([...common].filter((x) => mine.has(x)));
    }
    if (common.size === 1) {
      const [f, v] = [...common][0].split('=').map(Number);
      out.set(`${f}=${v}`, { factor: f, level: v });
    }
  }
  return [...out.values()];
}

export function maskerOf(space: FactorSpace, a: Assignment): Masker {
  return [{ factor: a.factor, allowed: space.levels[a.factor].map((_, v) => v === a.level) }];
}

/** Whether a combination (a partial configuration) has been tested, by the rules above. */
export function testedPredicate(rows: readonly CountingRow[], found: readonly FoundInteraction[]): (partial: Config) => boolean {
  return (partial) => {
    if (found.some((it) => holdsInteraction(partial, it))) return true;
    const set: number[] = [];
    partial.forEach((v, f) => {
      if (v !== UNSET) set.push(f);
    });
    return rows.some((r) => r.mustInclude.every((f) => partial[f] !== UNSET) && set.every((f) => r.config[f] === partial[f]));
  };
}

export interface CoverageSummary {
  strength: number;
  /** Valid t-way combinations under the plan's constraints. */
  validTuples: number;
  tested: number;
  /** Valid combinations no launch can hold: they contain levels that never launched (learned). */
  untestable: { count: number; byCause: { cause: string; count: number }[] };
  /** Valid, launchable and not tested (the run stopped, or their launches gave no verdict). */
  untested: { count: number; examples: Record<string, string>[] };
}

/** Counts every valid t-way combination as tested, untestable (and why) or untested. */
export function summarizeCoverage(
  space: FactorSpace,
  plan: ConstraintSet,
  learned: { label: string; constraint: ConstraintSet['constraints'][number] }[],
  strength: number,
  tested: (partial: Config) => boolean,
  maxExamples = 20,
): CoverageSummary {
  const k = space.names.length;
  const t = Math.min(strength, k);
  const launchable = new ConstraintSet(space, [...plan.constraints, ...learned.map((l) => l.constraint)]);
  const alone = learned.map((l) => ({ label: l.label, set: new ConstraintSet(space, [...plan.constraints, l.constraint]) }));
  const causes = new Map<string, number>();
  const summary: CoverageSummary = { strength: t, validTuples: 0, tested: 0, untestable: { count: 0, byCause: [] }, untested: { count: 0, examples: [] } };
  const partial: number[] = new Array(k).fill(UNSET);
  const cols: number[] = [];
  const visit = (from: number): void => {
    if (cols.length === t) return countValues(0);
    for (let c = from; c <= k - (t - cols.length); c++) {
      cols.push(c);
      visit(c + 1);
      cols.pop();
    }
  };
  const countValues = (j: number): void => {
    if (j === t) return classify();
    const c = cols[j];
    for (let v = 0; v < space.levels[c].length; v++) {
      partial[c] = v;
      countValues(j + 1);
    }
    partial[c] = UNSET;
  };
  const classify = (): void => {
    if (!plan.canExtend(partial)) return;
    summary.validTuples++;
    if (tested(partial)) summary.tested++;
    else if (!launchable.canExtend(partial)) {
      summary.untestable.count++;
      const cause = alone.find((l) => !l.set.canExtend(partial))?.label ?? 'learned constraints together';
      causes.set(cause, (causes.get(cause) ?? 0) + 1);
    } else {
      summary.untested.count++;
      if (summary.untested.examples.length < maxExamples)
        summary.untested.examples.push(Object.fromEntries(cols.map((c) => [space.names[c], space.levels[c][partial[c]]])));
    }
  };
  visit(0);
  summary.untestable.byCause = [...causes].map(([cause, count]) => ({ cause, count }));
  return summary;
}
