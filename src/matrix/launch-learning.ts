/**
 * Constraints learned from launches that never came up (a `--tensor-parallel-size 2` on a
 * one-GPU node, a flag this build does not know). A cell without a launch says nothing about
 * corruption, so the t-way combinations only it held must be tested by other launches — and
 * those must avoid whatever made it fail, or they fail too (the masking effect of invalid
 * values, Fögen & Lichter; research note §4).
 *
 * A failed launch blames the one explanation nothing has cleared: a level (other than the
 * reference's) is cleared once any launch holding it came up, a pair once they came up together.
 * When exactly one level of the failed launch is uncleared it is learned; when every level is
 * cleared but exactly one pair is not, the pair is learned. Anything more ambiguous learns
 * nothing yet: the next covering round puts those levels into different launches, and the
 * failures that follow decide. A launch that came up never blames anything, so a flaky failure
 * of a level that also launched elsewhere is just a cell without a verdict.
 */
import type { CellResult } from './cell-result.js';
import type { Constraint } from './constraints.js';
import { LAUNCH_FAULT_OUTCOMES, isConclusive } from './executor.js';
import type { Assignment } from './localize.js';
import type { Config, FactorSpace } from './space.js';

export interface LearnedLaunchConstraint {
  /** The levels that never launch (together). */
  levels: Assignment[];
  /** Failed launches holding them. */
  cells: string[];
  constraint: Constraint;
}

const cameUp = (c: CellResult): boolean => isConclusive(c.outcome) || c.outcome === 'probe-error';
// a level can keep a server from starting (a bad flag, too little memory); a lost node or a
// cancelled job says nothing about the levels, so it blames none
const noLaunch = (c: CellResult): boolean => LAUNCH_FAULT_OUTCOMES.includes(c.outcome);

/** `requestScope[f]`: a request-scope factor, which never blames a launch (its levels are not in it). */
export function learnLaunchConstraints(
  space: FactorSpace,
  reference: Config,
  cells: readonly CellResult[],
  requestScope: readonly boolean[] = [],
): LearnedLaunchConstraint[] {
  const up: Config[] = [...cells.filter(cameUp).map((c) => c.config), reference]; // the reference launched, or nothing would have run
  const key = (a: Assignment[]) => a.map((x) => `${x.factor}=${x.level}`).join(',');
  const cleared = new Set<string>();
  for (let f = 0; f < space.names.length; f++)
    if (requestScope[f]) for (let v = 0; v < space.levels[f].length; v++) cleared.add(`${f}=${v}`);
  for (const config of up)
    config.forEach((v, f) => {
      cleared.add(`${f}=${v}`);
      for (let g = f + 1; g < config.length; g++) cleared.add(`${f}=${v},${g}=${config[g]}`);
    });

  const learned = new Map<string, Assignment[]>();
  for (const cell of cells.filter(noLaunch)) {
    const config = cell.config;
    const singles = config.flatMap((level, factor) => (cleared.has(`${factor}=${level}`) ? [] : [[{ factor, level }]]));
    let blamed: Assignment[] | undefined;
    if (singles.length === 1) blamed = singles[0];
    else if (singles.length === 0) {
      const pairs: Assignment[][] = [];
      config.forEach((v, f) => {
        for (let g = f + 1; g < config.length; g++) {
          if (requestScope[f] || requestScope[g]) continue;
          const pair = [{ factor: f, level: v }, { factor: g, level: config[g] }];
          if (!cleared.has(key(pair))) pairs.push(pair);
        }
      });
      if (pairs.length === 1) blamed = pairs[0];
    }
    if (blamed) learned.set(key(blamed), blamed);
  }

  return [...learned.values()].map((levels) => {
    const holding = cells.filter((c) => noLaunch(c) && levels.every((a) => c.config[a.factor] === a.level)).map((c) => c.id);
    const label = levels.map((a) => `${space.names[a.factor]}=${space.levels[a.factor][a.level]}`).join(', ');
    return {
      levels,
      cells: holding,
      constraint: {
        kind: 'forbid',
        when: levels.map((a) => ({ factor: a.factor, allowed: space.levels[a.factor].map((_, v) => v === a.level) })),
        then: [],
        label: `learned: ${label} never launched (${holding.join(', ')})`,
      },
    };
  });
}
