/**
 * The configuration space a matrix run explores: factors, each with named levels.
 * A configuration is one level index per factor (plan order); a partial configuration uses
 * UNSET for factors not chosen yet. Everything numeric below works on these indices; names
 * appear only at the edges (plan loading, reports).
 */
export const UNSET = -1;

export interface FactorSpace {
  /** Factor names in plan order. */
  names: readonly string[];
  /** Level names per factor, in plan order. */
  levels: readonly (readonly string[])[];
}

export type Config = readonly number[];

export function levelCounts(space: FactorSpace): number[] {
  return space.levels.map((l) => l.length);
}

/** A stable text key for a (partial) configuration: "2.0.1.-1". */
export function configKey(config: Config): string {
  return config.join('.');
}

/** `factor=level` pairs of a configuration, for people and for the journal. */
export function configLevels(space: FactorSpace, config: Config): Record<string, string> {
  const out: Record<string, string> = {};
  config.forEach((v, f) => {
    if (v !== UNSET) out[space.names[f]] = space.levels[f][v];
  });
  return out;
}

/** The inverse of configLevels; every factor must be named with a known level. */
export function configFromLevels(space: FactorSpace, levels: Record<string, string>): number[] {
  return space.names.map((name, f) => {
    const level = levels[name];
    const v = space.levels[f].indexOf(level);
    if (v < 0) throw new Error(`configFromLevels: factor ${name} has no level ${String(level)}`);
    return v;
  });
}

/** Number of complete configurations, ignoring constraints (may exceed 2^53 only for absurd plans). */
export function productSize(space: FactorSpace): number {
  return space.levels.reduce((n, l) => n * l.length, 1);
}
