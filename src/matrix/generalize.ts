/**
 * Level generalization of a verified interaction: which *other* levels of each of its factors
 * fail the same way. The search names one level per factor (kv_cache=fp8_e5m2), but when the
 * other FP8 level fails too the answer users need is "kv_cache ∈ {fp8_e4m3, fp8_e5m2}" and the
 * remedy "any other level". Each level not yet judged is tried once, on the minimal failing
 * configuration with only that factor changed (the constraints may move dependants along),
 * all at once where slots allow. The reference level is safe already: verification relaxed it.
 */
import type { Assignment, LocalizeEnv, Verdict } from './localize.js';
import { UNSET, type Config } from './space.js';

export interface LevelSet {
  factor: number;
  /** Levels whose launch fails with the rest of the interaction (the found one first). */
  failing: number[];
  /** Levels that cleared it: each a verified remedy. */
  safe: number[];
  /** Levels no valid configuration can combine with the rest of the interaction. */
  impossible: number[];
  /** Levels whose launch gave no verdict. */
  unknown: number[];
  /** The configuration each other level was judged on, with its verdict. */
  trials: { level: number; config: number[]; verdict: Verdict }[];
}

/** The minimal configuration with `factor` at `level`, the interaction's other factors kept. */
function withLevel(env: LocalizeEnv, interaction: readonly Assignment[], minimal: Config, reference: Config, factor: number, level: number): number[] | undefined {
  const partial: number[] = minimal.map(() => UNSET);
  for (const a of interaction) partial[a.factor] = a.level;
  partial[factor] = level;
  return env.constraints.complete(partial, (f, v) => (v === minimal[f] ? 0 : v === reference[f] ? 1 : 2));
}

export async function generalizeLevels(
  env: LocalizeEnv,
  interaction: readonly Assignment[],
  minimal: Config,
  reference: Config,
): Promise<LevelSet[]> {
  const sets: LevelSet[] = interaction.map((a) => ({
    factor: a.factor,
    failing: [a.level],
    safe: a.level === reference[a.factor] ? [] : [reference[a.factor]],
    impossible: [],
    unknown: [],
    trials: [],
  }));
  const planned: { set: LevelSet; level: number; config: number[] }[] = [];
  for (const set of sets) {
    const levels = env.constraints.space.levels[set.factor];
    for (let v = 0; v < levels.length; v++) {
      if (set.failing.includes(v) || set.safe.includes(v)) continue;
      const config = withLevel(env, interaction, minimal, reference, set.factor, v);
      if (config) planned.push({ set, level: v, config });
      else set.impossible.push(v);
    }
  }
  if (planned.length === 0) return sets;
  const verdicts = await env.test(
    planned.map((p) => p.config),
    'generalize',
  );
  planned.forEach((p, i) => {
    const verdict = verdicts[i];
    p.set.trials.push({ level: p.level, config: p.config, verdict });
    (verdict === 'fail' ? p.set.failing : verdict === 'pass' ? p.set.safe : p.set.unknown).push(p.level);
  });
  for (const set of sets) set.safe.sort((a, b) => a - b);
  return sets;
}
