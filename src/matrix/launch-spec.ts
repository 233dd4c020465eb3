/**
 * The launch of one cell: the plan's base command plus the fragments of the chosen levels.
 * JSON-valued flags (e.g. --attention-config) are deep-merged — base first, then levels in
 * factor order — into one argument, so two factors can each add a key to the same flag.
 * Placeholders ({port}, …) are left in place; the executor fills them.
 */
import type { JsonArgs, MatrixPlan } from './plan-compile.js';
import type { Config } from './space.js';

export interface LaunchSpec {
  argv: string[];
  env: Record<string, string>;
  /** GPUs the cell needs: the product of its levels' gpus where any sets it, else launch.gpus. */
  gpus: number;
}

export function buildLaunch(plan: MatrixPlan, config: Config): LaunchSpec {
  const argv = [...plan.launch.argv];
  const env = { ...plan.launch.env };
  const json: JsonArgs = {};
  mergeInto(json, plan.launch.jsonArgs);
  let levelGpus: number | undefined;
  config.forEach((v, f) => {
    const fragment = plan.fragments[f][v];
    argv.push(...fragment.argv);
    Object.assign(env, fragment.env);
    mergeInto(json, fragment.jsonArgs);
    if (fragment.gpus !== undefined) levelGpus = (levelGpus ?? 1) * fragment.gpus;
  });
  for (const [flag, value] of Object.entries(json)) argv.push(flag, JSON.stringify(value));
  return { argv, env, gpus: levelGpus ?? plan.launch.gpus };
}

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);

function mergeInto(target: Obj, source: Obj): void {
  for (const [key, value] of Object.entries(source)) {
    if (isObj(value) && isObj(target[key])) mergeInto(target[key] as Obj, value);
    else target[key] = isObj(value) ? structuredClone(value) : value;
  }
}

/** The request fields of a configuration: its request-scope levels merged in factor order. */
export function requestFieldsFor(plan: MatrixPlan, config: Config): Record<string, unknown> {
  const out: Obj = {};
  config.forEach((v, f) => {
    if (plan.scopes[f] === 'request') mergeInto(out, plan.fragments[f][v].request);
  });
  return out;
}

/** A text that is the same for two configurations exactly when they launch the same server. */
export function launchKeyOf(plan: MatrixPlan, config: Config): string {
  const { argv, env } = buildLaunch(plan, config);
  return JSON.stringify([argv, Object.entries(env).sort(([a], [b]) => a.localeCompare(b))]);
}

/** The configuration with every request-scope factor at the given levels (reference ones by default). */
export function withRequestLevels(plan: MatrixPlan, config: Config, levels: Config = plan.baseline): number[] {
  return config.map((v, f) => (plan.scopes[f] === 'request' ? levels[f] : v));
}
