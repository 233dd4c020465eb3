/**
 * The "most enabled" configurations a run starts with: every factor off its reference level
 * wherever the constraints allow, one configuration per exclusive choice, until every
 * non-reference level has appeared once. If the fault is an AND of features, the first of
 * these fails at once (research note §2.3, Medeiros et al.'s most-enabled-disabled).
 * Factors marked as choices (`role: choice`: alternatives such as a drafter) stay at their
 * reference level here: "all suspects on" says nothing about which alternative to take, and an
 * alternative that masks the fault would make the configuration meant to expose it pass.
 */
import type { ConstraintSet } from './constraints.js';
import { UNSET, type Config } from './space.js';

export function maximalConfigurations(constraints: ConstraintSet, reference: Config, choices: readonly boolean[] = []): number[][] {
  const space = constraints.space;
  const pending = space.levels.map((levels, f) => levels.map((_, v) => v !== reference[f] && !choices[f]));
  const out: number[][] = [];
  for (let f = 0; f < pending.length; f++) {
    for (let v = 0; v < pending[f].length; v++) {
      if (!pending[f][v]) continue;
      const partial: number[] = reference.map(() => UNSET);
      partial[f] = v;
      // Prefer levels not shown yet, then other non-reference levels; the reference level last.
      const config = constraints.complete(partial, (g, w) =>
        choices[g] ? (w === reference[g] ? 0 : 1) : w === reference[g] ? 3 : pending[g][w] ? 0 : 1,
      );
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
