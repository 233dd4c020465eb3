/** Small builders for tests and benches: spaces and constraints written by name. */
import type { Condition, Constraint } from './constraints.js';
import type { FactorSpace } from './space.js';

export function binarySpace(k: number): FactorSpace {
  return { names: Array.from({ length: k }, (_, i) => `f${i}`), levels: Array.from({ length: k }, () => ['0', '1']) };
}

export function space(factors: Record<string, string[]>): FactorSpace {
  return { names: Object.keys(factors), levels: Object.values(factors) };
}

function conditions(s: FactorSpace, spec: Record<string, string | string[]>): Condition[] {
  return Object.entries(spec).map(([name, levels]) => {
    const factor = s.names.indexOf(name);
    if (factor < 0) throw new Error(`unknown factor ${name}`);
    const wanted = Array.isArray(levels) ? levels : [levels];
    return { factor, allowed: s.levels[factor].map((l) => wanted.includes(l)) };
  });
}

const show = (spec: Record<string, string | string[]>): string =>
  Object.entries(spec)
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('|') : v}`)
    .join(', ');

export function forbid(s: FactorSpace, spec: Record<string, string | string[]>): Constraint {
  return { kind: 'forbid', when: conditions(s, spec), then: [], label: `forbid ${show(spec)}` };
}

export function implies(
  s: FactorSpace,
  when: Record<string, string | string[]>,
  then: Record<string, string | string[]>,
): Constraint {
  return { kind: 'implies', when: conditions(s, when), then: conditions(s, then), label: `if ${show(when)} then ${show(then)}` };
}

/** Every complete configuration, in odometer order (tests only: exponential). */
export function* allConfigs(s: FactorSpace): Generator<number[]> {
  const c = s.levels.map(() => 0);
  while (true) {
    yield [...c];
    let f = c.length - 1;
    while (f >= 0 && ++c[f] === s.levels[f].length) c[f--] = 0;
    if (f < 0) return;
  }
}
