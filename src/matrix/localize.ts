/**
 * Adaptive localization of the minimal failing interaction behind one failing configuration.
 *
 * Model (research note §2): a configuration fails when it contains a failure-inducing
 * combination of (factor = level) assignments; the reference levels are safe values.
 * Starting from a failing configuration F, "keep S" means: F's levels on the factors in S,
 * reference levels elsewhere — repaired by the constraints when that is invalid (a dependent
 * factor moves to its cheapest valid level: reference first, then a third level, F's own
 * level last). Search for the smallest S that still fails:
 *
 * - leave-one-out when the executor has a slot per differing factor: drop each factor once,
 *   all at the same time; the factors whose removal makes it pass form the candidate;
 * - otherwise binary search (FIC_BS-like, P-ary when several slots are free): find the
 *   shortest failing prefix of the candidates, whose last element is necessary; repeat with
 *   that element fixed until the fixed set fails on its own (about t·(⌈log2 k⌉+1)+1 tests).
 *
 * Then verify: the minimal configuration fails and each one-factor relaxation of it passes; a
 * relaxation that still fails (a wrong turn caused by a missed corruption) restarts the search
 * from it. Finally a context check moves every factor the failing configuration leaves at its
 * reference level off it: if that passes, some reference levels take part in the interaction and
 * a second search between the two finds them. The caller's `test` applies the noise policy (trust a FAIL, confirm a
 * PASS) and caches configurations, so asking again costs nothing.
 */
import type { ConstraintSet } from './constraints.js';
import { UNSET, type Config } from './space.js';

export type Verdict = 'fail' | 'pass' | 'unknown';

export interface LocalizeEnv {
  constraints: ConstraintSet;
  /** One verdict per configuration; runs them in parallel where it can. `purpose` labels the cells. */
  test(configs: readonly Config[], purpose: 'search' | 'verify' | 'generalize'): Promise<Verdict[]>;
  /** Tests that can run at once. */
  parallel: number;
  /** choices[factor]: alternatives (role: choice), kept at their reference level by the context check. */
  choices?: readonly boolean[];
}

export interface Assignment {
  factor: number;
  level: number;
}

export interface Relaxation {
  /** The factor moved back to the background level. */
  factor: number;
  /** reference: a one-factor relaxation of the minimal configuration (a candidate remedy);
   *  context: part of the search for reference levels that take part. */
  against: 'reference' | 'context';
  config: number[];
  verdict: Verdict;
}

export interface Localization {
  status: 'found' | 'inconclusive';
  /** The minimal failing interaction, by factor order. */
  interaction: Assignment[];
  /** Levels the constraints force along with the interaction (not part of it). */
  forced: Assignment[];
  /** The interaction on the reference background: it fails. */
  minimal?: number[];
  /** Each one-factor relaxation of `minimal`: each passes. */
  relaxations: Relaxation[];
  /** The interaction with every other factor moved off its reference level. */
  context?: { config: number[]; verdict: Verdict };
  method: 'leave-one-out' | 'binary-search';
  reason?: string;
}

interface Minimized {
  ok: boolean;
  /** Factors (of F's levels) that must be kept. */
  kept: number[];
  minimal: number[];
  relaxations: Relaxation[];
  method: Localization['method'];
  reason?: string;
}

const differing = (a: Config, b: Config): number[] => a.flatMap((v, f) => (v !== b[f] ? [f] : []));

/** F's levels on `keep`, the background elsewhere, repaired to satisfy the constraints. */
function keepOnly(env: LocalizeEnv, failing: Config, background: Config, keep: readonly number[]): number[] {
  const partial: number[] = failing.map(() => UNSET);
  for (const f of keep) partial[f] = failing[f];
  const config = env.constraints.complete(partial, (f, v) => (v === background[f] ? 0 : v === failing[f] ? 2 : 1));
  if (!config) throw new Error('localize: a subset of a valid configuration has no valid completion');
  return config;
}

/**
 * Ways to take `factor` out of the minimal configuration: dropping it from the kept set (its
 * dependants follow it back), and, when that moves other factors too, also changing it alone
 * to its cheapest other valid level (e.g. draft length 7 → 3 with speculative decoding kept on).
 */
function relaxationsOf(
  env: LocalizeEnv,
  minimal: Config,
  factor: number,
  failing: Config,
  background: Config,
  kept: readonly number[],
): { factor: number; config: number[] }[] {
  const dropped = keepOnly(env, failing, background, kept.filter((f) => f !== factor));
  const out = [{ factor, config: dropped }];
  if (differing(dropped, minimal).every((f) => f === factor)) return out;
  const levels = [...env.constraints.space.levels[factor].keys()]
    .filter((v) => v !== minimal[factor])
    .sort((a, b) => Number(b === background[factor]) - Number(a === background[factor]) || a - b);
  for (const v of levels) {
    const single = [...minimal];
    single[factor] = v;
    if (env.constraints.isValid(single)) {
      out.push({ factor, config: single });
      break;
    }
  }
  return out;
}

/** Up to `n` split points strictly between lo and hi, evenly spaced. */
function splitPoints(lo: number, hi: number, n: number): number[] {
  const points = new Set<number>();
  for (let j = 1; j <= n; j++) {
    const m = lo + Math.round((j * (hi - lo)) / (n + 1));
    if (m > lo && m < hi) points.add(m);
  }
  if (points.size === 0) points.add(lo + Math.floor((hi - lo) / 2));
  return [...points].sort((a, b) => a - b);
}

type Search = { ok: true; kept: number[] } | { ok: false; reason: string };

async function leaveOneOut(env: LocalizeEnv, failing: Config, background: Config, diff: number[]): Promise<Search | undefined> {
  const configs = diff.map((e) => keepOnly(env, failing, background, diff.filter((f) => f !== e)));
  const verdicts = await env.test(configs, 'search');
  if (verdicts.includes('unknown')) return undefined;
  const kept = diff.filter((_, i) => verdicts[i] === 'pass');
  if (kept.length === 0) return undefined; // several interactions overlap in F: no single factor clears it
  const [v] = await env.test([keepOnly(env, failing, background, kept)], 'search');
  return v === 'fail' ? { ok: true, kept } : undefined;
}

async function binarySearch(env: LocalizeEnv, failing: Config, background: Config, diff: number[]): Promise<Search> {
  const fixed: number[] = [];
  let rest = [...diff];
  // Invariant: keepOnly(fixed ∪ rest) fails.
  for (let guard = 0; guard <= diff.length; guard++) {
    if (fixed.length > 0) {
      const [v] = await env.test([keepOnly(env, failing, background, fixed)], 'search');
      if (v === 'fail') return { ok: true, kept: [...fixed].sort((a, b) => a - b) };
      if (v === 'unknown') return { ok: false, reason: 'a configuration during the search gave no verdict (launch or probe problem)' };
    }
    if (rest.length === 0) return { ok: false, reason: 'the search ran out of candidates (inconsistent verdicts)' };
    // Shortest prefix of `rest` that fails together with `fixed`: lo passes, hi fails.
    let lo = 0;
    let hi = rest.length;
    while (hi - lo > 1) {
      const points = splitPoints(lo, hi, Math.max(1, env.parallel));
      const verdicts = await env.test(
        points.map((m) => keepOnly(env, failing, background, [...fixed, ...rest.slice(0, m)])),
        'search',
      );
      if (verdicts.includes('unknown'))
        return { ok: false, reason: 'a configuration during the search gave no verdict (launch or probe problem)' };
      const failAt = points.find((_, i) => verdicts[i] === 'fail');
      const newHi = failAt ?? hi;
      const passBelow = points.filter((m, i) => m < newHi && verdicts[i] === 'pass');
      lo = passBelow.length ? passBelow[passBelow.length - 1] : lo;
      hi = newHi;
    }
    fixed.push(rest[hi - 1]);
    rest = rest.slice(0, hi - 1);
  }
  return { ok: false, reason: 'the search did not converge' };
}

/** The smallest set of F's differences from the background that still fails, verified. */
async function minimize(env: LocalizeEnv, start: Config, background: Config): Promise<Minimized> {
  let failing = [...start];
  let method: Localization['method'] = 'binary-search';
  for (let round = 0; round <= start.length; round++) {
    const diff = differing(failing, background);
    if (diff.length === 0)
      return { ok: false, kept: [], minimal: failing, relaxations: [], method, reason: 'the failing configuration equals its background' };
    let found: Search | undefined;
    if (env.parallel >= diff.length && diff.length > 1) {
      found = await leaveOneOut(env, failing, background, diff);
      if (found) method = 'leave-one-out';
    }
    found ??= await binarySearch(env, failing, background, diff);
    if (!found.ok) return { ok: false, kept: [], minimal: failing, relaxations: [], method, reason: found.reason };
    const kept = found.kept;
    const minimal = keepOnly(env, failing, background, kept);
    const planned = kept.flatMap((factor) => relaxationsOf(env, minimal, factor, failing, background, kept));
    const verdicts = await env.test(
      planned.map((r) => r.config),
      'verify',
    );
    const relaxations = planned.map((r, i) => ({ ...r, against: 'reference' as const, verdict: verdicts[i] }));
    if (verdicts.includes('unknown'))
      return { ok: false, kept, minimal, relaxations, method, reason: 'a relaxation of the minimal configuration gave no verdict' };
    const stillFailing = relaxations.find((r) => r.verdict === 'fail');
    if (!stillFailing) return { ok: true, kept, minimal, relaxations, method };
    failing = stillFailing.config; // not minimal after all: search again from the smaller failing configuration
  }
  return { ok: false, kept: [], minimal: failing, relaxations: [], method, reason: 'verification kept finding smaller failing configurations' };
}

export async function localizeFailure(env: LocalizeEnv, failing: Config, reference: Config): Promise<Localization> {
  const first = await minimize(env, failing, reference);
  const empty = { interaction: [], forced: [], relaxations: first.relaxations, method: first.method };
  if (!first.ok) return { ...empty, status: 'inconclusive', minimal: first.minimal, reason: first.reason };
  const minimal = first.minimal;
  let kept = first.kept;
  const relaxations = [...first.relaxations];

  // Context check: the failing configuration with every factor it leaves at the reference level
  // moved off it (where the constraints allow). Passing means some of those reference levels take
  // part; a second search between the two finds which. Only factors at their reference level in
  // the failing configuration are candidates: its failure shows the others are not needed there.
  // Choices stay at their reference level: which alternative is in use is the covering array's
  // question, and one that masks the fault would make this check pass for the wrong reason.
  const partial: number[] = failing.map((v, f) => (v !== reference[f] ? v : env.choices?.[f] ? reference[f] : UNSET));
  for (const f of kept) partial[f] = failing[f];
  const moved = env.constraints.complete(partial, (f, v) => (v === reference[f] ? 2 : 1));
  let context: Localization['context'];
  let baselineKept: number[] = [];
  if (moved && differing(moved, failing).length > 0) {
    const [v] = await env.test([moved], 'verify');
    context = { config: moved, verdict: v };
    if (v === 'pass') {
      const second = await minimize(env, failing, moved);
      if (!second.ok)
        return { ...empty, status: 'inconclusive', minimal, relaxations, context, reason: `context search: ${second.reason}` };
      baselineKept = second.kept;
      relaxations.push(...second.relaxations.map((r) => ({ ...r, against: 'context' as const })));
    }
  }
  kept = [...new Set([...kept, ...baselineKept])].sort((a, b) => a - b);
  const interaction = kept.map((factor) => ({ factor, level: minimal[factor] }));
  const forced = differing(minimal, reference)
    .filter((f) => !kept.includes(f))
    .map((factor) => ({ factor, level: minimal[factor] }));
  return { status: 'found', interaction, forced, minimal, relaxations, context, method: first.method };
}
