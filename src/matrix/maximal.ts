/**
 * The "most enabled" configurations a run starts with: every factor off its reference level
 * wherever the constraints allow, one configuration per exclusive choice, until every
 * non-reference level has appeared once. If the fault is an AND of features, the first of
 * these fails at once (research note §2.3, Medeiros et al.'s most-enabled-disabled).
 */
import type { ConstraintSet } from './constraints.js';
import { UNSET, type Config } from './space.js';

export function maximalConfigurations(constraints: ConstraintSet, reference: Config): number[][] {
  const space = constraints.space;
  const pending = space.levels.map((levels, f) => levels.map((_, v) => v !== reference[f]));
  const out: number[][] = [];
  for (let f = 0; f < pending.length; f++) {
    for (let v = 0; v < pending[f].length; v++) {
      if (!pending[f][v]) continue;
      const partial: number[] = reference.map(() => UNSET);
      partial[f] = v;
      // Prefer levels not shown yet, then other non-reference levels; the reference level last.
      const config = constraints.complete(partial, (g, w) => (w === reference[g] ? 3 : pending[g][w] ? 0 : 1));
      if (!config) {
        pending[f][v] = false; // a dead level; plan loading reports those
        continue;
      }
      config.forEach((w, g) => (pending[g][w] = false));
      out.push(config);
    }
  }
  return out;
}
