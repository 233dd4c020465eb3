/**
 * From validated plan data to the numeric model the engine works on: the factor space,
 * compiled constraints, the baseline (safe values), launch fragments. Semantic problems —
 * unknown factor or level names, unsatisfiable constraints, unknown placeholders, JSON flag
 * conflicts — are UserErrors at the plan's line:col.
 */
import { createHash } from 'node:crypto';
import { UserError, type SourceLocation } from '../core/errors.js';
import type { ConfirmPolicy } from './confirmation.js';
import { ConstraintSet, findConstraintProblems, type Condition, type Constraint } from './constraints.js';
import { DEFAULT_SHRINK_WORK } from './covering-shrink.js';
import { MAX_REQUEST_VARIANTS, requestVariants } from './request-variants.js';
import type { Masker } from './tested-tuples.js';
import { compileExecutor } from './executors/executor-compile.js';
import type { ExecutorData } from './executors/executor-schema.js';
import { PLACEHOLDERS, type PlanData } from './plan.js';
import type { FactorSpace } from './space.js';
import type { DataPath, LocatedYaml } from './yaml-located.js';

export type JsonArgs = Record<string, Record<string, unknown>>;

export interface LevelFragment {
  argv: string[];
  env: Record<string, string>;
  jsonArgs: JsonArgs;
  /** Request-scope factors: fields of every probe request. */
  request: Record<string, unknown>;
  /** GPUs a cell needs with this level (instead of launch.gpus; several multiply). */
  gpus?: number;
}

export interface MatrixPlan {
  file: string;
  space: FactorSpace;
  descriptions: (string | undefined)[];
  /** choices[factor]: the factor's levels are alternatives (role: choice), not a suspect switched on. */
  choices: boolean[];
  /** scopes[factor]: launch (a server flag) or request (a field of the probe's requests). */
  scopes: ('launch' | 'request')[];
  /**
   * Factors the most-enabled launches and the context check keep at their reference level: the
   * choices, and the factors of declared maskers (a launch passing because a masker hid the fault
   * would say nothing).
   */
  heldAtReference: boolean[];
  /** fragments[factor][level] */
  fragments: LevelFragment[][];
  /** Where each level was written: locations[factor][level]. */
  levelLocations: SourceLocation[][];
  constraints: ConstraintSet;
  /** The reference configuration; its levels are the safe values localization relaxes to. */
  baseline: number[];
  /** keepAlive: the launched reference stays up and scores every cell (gpus: its CUDA_VISIBLE_DEVICES). */
  reference: { kind: 'launch'; keepAlive: boolean; gpus?: string } | { kind: 'url'; url: string };
  launch: {
    argv: string[];
    env: Record<string, string>;
    jsonArgs: JsonArgs;
    cwd?: string;
    health: string;
    readyTimeoutMs: number;
    stopTimeoutMs: number;
    /** GPUs a cell needs unless its levels say otherwise. */
    gpus: number;
  };
  strength: number;
  seed: number;
  /** How many probe rounds a PASS needs (confirmation.ts). */
  confirm: ConfirmPolicy;
  coverage: {
    /** After a verified interaction from a most-enabled launch: stop, or cover the rest. */
    afterFound: 'stop' | 'cover';
    /** Extra covering rounds for combinations whose launches gave no verdict. */
    rounds: number;
    /** Work budget of each covering array's shrinking pass. */
    shrinkWork: number;
  };
  /** Levels known to hide other faults (coverage.maskers). */
  maskers: Masker[];
  probe: Record<string, unknown>;
  /** Where each `probe:` key was written (and the block itself under ''), for errors about them. */
  probeAt: Record<string, SourceLocation>;
  /** Where cells run (executors/executor-schema.ts); local.parallel defaults to one slot per listed GPU. */
  executor: ExecutorData;
  maxFaults: number;
  /** sha256 of the plan text: a resumed run must use the same plan. */
  hash: string;
}

const PLACEHOLDER = /\{([A-Za-z_][\w-]*)\}/g;

export function compilePlan(data: PlanData, yaml: LocatedYaml, text: string): MatrixPlan {
  const err = (path: DataPath, message: string, hint: string, key = false): UserError =>
    new UserError(message, { code: 'E_PLAN', at: key ? yaml.keyAt(path) : yaml.at(path), hint });

  // Written order, not object order (integer-like names would jump ahead).
  const names = yaml.keysAt(['factors']);
  if (names.length === 0) throw err(['factors'], 'the plan has no factors', 'add at least one factor with two or more levels');
  const levels = names.map((name) => yaml.keysAt(['factors', name, 'levels']));
  names.forEach((name, f) => {
    if (levels[f].length < 2)
      throw err(['factors', name, 'levels'], `factor "${name}" has ${levels[f].length} level(s)`, 'a factor needs at least two levels to vary');
  });
  const space: FactorSpace = { names, levels };
  const fragments = names.map((name, f) =>
    levels[f].map((level) => {
      const raw = data.factors[name].levels[level] ?? {};
      return { argv: raw.argv ?? [], env: raw.env ?? {}, jsonArgs: (raw.json_args ?? {}) as JsonArgs, request: raw.request ?? {}, ...(raw.gpus !== undefined ? { gpus: raw.gpus } : {}) };
    }),
  );
  const levelLocations = names.map((name, f) => levels[f].map((level) => yaml.keyAt(['factors', name, 'levels', level])));
  const scopes = names.map((name) => data.factors[name].scope);
  checkScopes(names, levels, scopes, fragments, err);

  const factorIndex = (path: DataPath, name: string): number => {
    const f = names.indexOf(name);
    if (f < 0) throw err(path, `unknown factor "${name}"`, `factors are: ${names.join(', ')}`, true);
    return f;
  };
  const levelIndex = (path: DataPath, f: number, level: string): number => {
    const v = levels[f].indexOf(level);
    if (v < 0) throw err(path, `factor "${names[f]}" has no level "${level}"`, `its levels are: ${levels[f].join(', ')}`);
    return v;
  };

  /** `factor: level | [levels]` mappings (constraint sides, maskers) → conditions. */
  const conditionsAt = (at: DataPath, written: Record<string, string[]>): Condition[] =>
    Object.entries(written).map(([name, wanted]) => {
      const f = factorIndex([...at, name], name);
      const allowed = levels[f].map(() => false);
      wanted.forEach((level, j) => {
        const path = wanted.length === 1 && !Array.isArray(yamlValue(yaml, [...at, name])) ? [...at, name] : [...at, name, j];
        allowed[levelIndex(path, f, level)] = true;
      });
      return { factor: f, allowed };
    });

  // Constraints.
  const compiled: Constraint[] = data.constraints.map((c, i) => {
    const conditions = (side: 'forbid' | 'if' | 'then'): Condition[] => conditionsAt(['constraints', i, side], c[side] ?? {});
    const show = (side: 'forbid' | 'if' | 'then') =>
      Object.entries(c[side] ?? {})
        .map(([n, l]) => `${n}=${l.join('|')}`)
        .join(', ');
    const at = yaml.at(['constraints', i]);
    return c.forbid
      ? { kind: 'forbid', when: conditions('forbid'), then: [], label: `forbid ${show('forbid')}`, at }
      : { kind: 'implies', when: conditions('if'), then: conditions('then'), label: `if ${show('if')} then ${show('then')}`, at };
  });
  compiled.forEach((c, i) => {
    const mentioned = new Set([...c.when, ...c.then].map((x) => scopes[x.factor]));
    if (mentioned.size > 1)
      throw err(
        ['constraints', i],
        `the constraint "${c.label}" ties a launch-scope factor to a request-scope one`,
        'constraints stay within one scope: every request-level combination is probed on each launch, whatever its flags',
      );
  });
  for (const problem of findConstraintProblems(space, compiled)) {
    const i = compiled.indexOf(problem.culprit);
    if (problem.kind === 'unsatisfiable')
      throw err(
        ['constraints', i],
        `the constraints are unsatisfiable: with "${problem.culprit.label}" no configuration is valid`,
        'relax or remove this constraint (together with the ones before it, it excludes every configuration)',
      );
    throw err(
      ['constraints', i],
      `level "${levels[problem.factor][problem.level]}" of factor "${names[problem.factor]}" can never be chosen once "${problem.culprit.label}" applies`,
      'a level no valid configuration can use is never tested: fix the constraint or remove the level',
    );
  }
  const constraints = new ConstraintSet(space, compiled);
  const variants = requestVariants({ scopes, space, constraints }).length;
  if (variants > MAX_REQUEST_VARIANTS)
    throw err(
      ['factors'],
      `the request-scope factors have ${variants} level combinations; each is probed on every launch that needs it and recorded from the reference`,
      `keep them at ${MAX_REQUEST_VARIANTS} or fewer (fewer levels, or fewer request-scope factors)`,
      true,
    );
  const maskers = data.coverage.maskers.map((m, i) => conditionsAt(['coverage', 'maskers', i], m));

  // Reference: its levels are the baseline (safe values).
  const baseline = names.map(() => 0);
  for (const [name, level] of Object.entries(data.reference.levels ?? {})) {
    const f = factorIndex(['reference', 'levels', name], name);
    baseline[f] = levelIndex(['reference', 'levels', name], f, level);
  }
  const broken = constraints.firstViolated(baseline);
  if (broken) {
    throw err(
      data.reference.levels ? ['reference', 'levels'] : ['constraints', compiled.indexOf(broken)],
      `the reference configuration breaks the constraint "${broken.label}"`,
      data.reference.levels
        ? 'choose reference levels that satisfy every constraint'
        : 'without reference.levels the reference is the first level of every factor; set reference.levels to a valid configuration',
    );
  }

  // Placeholders, wherever argv words or environment values are written.
  const scan = (path: DataPath, value: string): string[] =>
    [...value.matchAll(PLACEHOLDER)].map((m) => {
      if (!(PLACEHOLDERS as readonly string[]).includes(m[1]))
        throw err(path, `unknown placeholder {${m[1]}}`, `placeholders are ${PLACEHOLDERS.map((p) => `{${p}}`).join(', ')}`);
      return m[1];
    });
  const launchPlaceholders = [
    ...data.launch.argv.flatMap((w, j) => scan(['launch', 'argv', j], w)),
    ...Object.entries(data.launch.env ?? {}).flatMap(([key, w]) => scan(['launch', 'env', key], w)),
  ];
  names.forEach((name, f) =>
    levels[f].forEach((level, v) => {
      const at = ['factors', name, 'levels', level];
      fragments[f][v].argv.forEach((w, j) => scan([...at, 'argv', j], w));
      for (const [key, w] of Object.entries(fragments[f][v].env)) scan([...at, 'env', key], w);
    }),
  );
  if (!launchPlaceholders.includes('port'))
    throw err(
      ['launch', 'argv'],
      'launch.argv never says which port to listen on',
      'put the placeholder {port} where the server takes its port, e.g. [..., --port, "{port}"]',
    );

  checkJsonArgs(data, space, fragments, constraints, err);

  if (data.reference.url && (data.reference.keep_alive || data.reference.gpus !== undefined))
    throw err(['reference', data.reference.gpus !== undefined ? 'gpus' : 'keep_alive'], 'reference.url names a server faultline does not launch', 'keep_alive and gpus apply to a launched reference; a reference URL is used (and scores cells) as it is');
  const executor = compileExecutor(data, yaml, err);

  return {
    file: yaml.at([]).file,
    space,
    descriptions: names.map((n) => data.factors[n].description),
    choices: names.map((n) => data.factors[n].role === 'choice'),
    scopes,
    heldAtReference: names.map((n, f) => data.factors[n].role === 'choice' || maskers.some((m) => m.some((c) => c.factor === f))),
    fragments,
    levelLocations,
    constraints,
    baseline,
    reference: data.reference.url
      ? { kind: 'url', url: data.reference.url }
      : { kind: 'launch', keepAlive: data.reference.keep_alive, ...(data.reference.gpus !== undefined ? { gpus: data.reference.gpus } : {}) },
    launch: {
      argv: data.launch.argv,
      env: data.launch.env ?? {},
      jsonArgs: (data.launch.json_args ?? {}) as JsonArgs,
      cwd: data.launch.cwd,
      health: data.launch.health,
      readyTimeoutMs: data.launch.ready_timeout_s * 1000,
      stopTimeoutMs: data.launch.stop_timeout_s * 1000,
      gpus: data.launch.gpus,
    },
    strength: Math.min(data.strength, names.length),
    seed: data.seed,
    confirm: data.confirm === 'auto' ? { kind: 'auto', missRate: data.miss_rate } : { kind: 'fixed', reprobes: data.confirm },
    coverage: {
      afterFound: data.coverage.after_found,
      rounds: data.coverage.rounds,
      shrinkWork: Math.round(DEFAULT_SHRINK_WORK * data.coverage.shrink_effort),
    },
    maskers,
    probe: data.probe,
    probeAt: Object.fromEntries([
      ['', yaml.at(['probe'])],
      ...yaml.keysAt(['probe']).map((key) => [key, yaml.at(['probe', key])] as const),
    ]),
    executor,
    maxFaults: data.localize.max_faults,
    hash: createHash('sha256').update(text).digest('hex'),
  };
}

/** A request-scope level changes only requests, a launch-scope level only the launch. */
function checkScopes(
  names: readonly string[],
  levels: readonly (readonly string[])[],
  scopes: readonly ('launch' | 'request')[],
  fragments: LevelFragment[][],
  err: (path: DataPath, message: string, hint: string, key?: boolean) => UserError,
): void {
  names.forEach((name, f) =>
    levels[f].forEach((level, v) => {
      const fr = fragments[f][v];
      const at = ['factors', name, 'levels', level];
      if (scopes[f] === 'request') {
        const launchKey = fr.argv.length ? 'argv' : Object.keys(fr.env).length ? 'env' : Object.keys(fr.jsonArgs).length ? 'json_args' : fr.gpus !== undefined ? 'gpus' : undefined;
        if (launchKey)
          throw err([...at, launchKey], `factor "${name}" has scope: request, but its level "${level}" changes the launch (${launchKey})`, 'a request-scope level sets only `request:` fields; make the factor scope: launch to vary a flag', true);
      } else if (Object.keys(fr.request).length)
        throw err([...at, 'request'], `level "${level}" of factor "${name}" sets request fields, but the factor has scope: launch`, 'add `scope: request` to the factor (its levels then change requests, not launches)', true);
    }),
  );
}

function yamlValue(yaml: LocatedYaml, path: DataPath): unknown {
  let v: unknown = yaml.data;
  for (const seg of path) v = v && typeof v === 'object' ? (v as Record<string | number, unknown>)[seg] : undefined;
  return v;
}

/** JSON-valued flags: never also written as plain argv, and never set two ways by levels that can meet. */
function checkJsonArgs(
  data: PlanData,
  space: FactorSpace,
  fragments: LevelFragment[][],
  constraints: ConstraintSet,
  err: (path: DataPath, message: string, hint: string) => UserError,
): void {
  const jsonFlags = new Set([
    ...Object.keys(data.launch.json_args ?? {}),
    ...fragments.flatMap((levels) => levels.flatMap((l) => Object.keys(l.jsonArgs))),
  ]);
  const plain = (argv: string[]): string | undefined => argv.find((a) => jsonFlags.has(a) || jsonFlags.has(a.split('=')[0]));
  const inBase = plain(data.launch.argv);
  if (inBase)
    throw err(['launch', 'argv', data.launch.argv.indexOf(inBase)], `${inBase} is given in argv and as JSON-valued flag`, `move its value to launch.json_args so levels can merge into it`);
  space.names.forEach((name, f) =>
    space.levels[f].forEach((level, v) => {
      const hit = plain(fragments[f][v].argv);
      if (hit)
        throw err(['factors', name, 'levels', level, 'argv'], `${hit} is given in argv and as JSON-valued flag`, `write it under json_args so it merges with the others`);
    }),
  );
  // Two levels of different factors writing the same leaf differently, in a valid configuration.
  const k = space.names.length;
  for (let f = 0; f < k; f++)
    for (let g = f + 1; g < k; g++)
      space.levels[f].forEach((_, v) =>
        space.levels[g].forEach((__, w) => {
          const clash = firstClash(fragments[f][v].jsonArgs, fragments[g][w].jsonArgs);
          if (!clash) return;
          const pair = space.names.map(() => -1);
          pair[f] = v;
          pair[g] = w;
          if (!constraints.canExtend(pair)) return;
          throw err(
            ['factors', space.names[g], 'levels', space.levels[g][w], 'json_args'],
            `${clash} is set differently by ${space.names[f]}=${space.levels[f][v]} and ${space.names[g]}=${space.levels[g][w]}`,
            'two factors that can be chosen together must not disagree on one JSON key; merge them into one factor or forbid the pair',
          );
        }),
      );
}

function firstClash(a: unknown, b: unknown, path = ''): string | undefined {
  const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
  if (isObj(a) && isObj(b)) {
    for (const key of Object.keys(a)) {
      if (key in b) {
        const clash = firstClash(a[key], b[key], path ? `${path}.${key}` : key);
        if (clash) return clash;
      }
    }
    return undefined;
  }
  return JSON.stringify(a) === JSON.stringify(b) ? undefined : path;
}
