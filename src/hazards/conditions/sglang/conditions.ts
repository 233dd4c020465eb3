/**
 * Conditions over an SGLang launch's effective arguments, generic enough that each SGLang hazard
 * is its data plus a few of these: a switch on or off, an argument in a set of values, the
 * attention backend of a phase, speculative decoding with one of some algorithms. Unknown values
 * (SGLang chose them from a fact the launch does not show) answer unknown, never clean.
 */
import type { Deployment } from '../../../deployment/deployment.js';
import type { Condition, ConditionResult } from '../../hazard.js';
import { said, sglArg, type SglangValue } from './args.js';

/** A condition on one argument's value; a value SGLang chose from a fact the launch does not show answers unknown. */
function onArg(
  name: string,
  field: string,
  description: string,
  judge: (v: SglangValue, d: Deployment) => ConditionResult,
): Condition {
  return {
    name,
    description,
    check(d: Deployment): ConditionResult {
      const v = sglArg(d, field);
      if (v.source === 'unknown') return { status: 'unknown', detail: `${field}: ${v.why}`, at: v.at };
      return judge(v, d);
    },
  };
}

export function switchOn(name: string, field: string, description: string): Condition {
  return onArg(name, field, description, (v) =>
    v.value === true
      ? { status: 'met', detail: said(field, v), at: v.at }
      : { status: 'not-met', detail: `--${field.replace(/_/g, '-')} is not set`, at: v.at },
  );
}

/** The feature a `--disable-x` switch turns off is on (the switch is not given). */
export function notDisabled(name: string, field: string, description: string): Condition {
  return onArg(name, field, description, (v, d) =>
    v.value === true
      ? { status: 'not-met', detail: said(field, v), at: v.at }
      : {
          status: 'met',
          detail: `--${field.replace(/_/g, '-')} is not given, so it is on`,
          at: d.at,
          byDefault: v.source === 'default',
        },
  );
}

/** An argument takes one of `values` (compared as text); `unset` says what an unset value means. */
export function argIn(
  name: string,
  field: string,
  values: readonly (string | number)[],
  description: string,
): Condition {
  const wanted = values.map(String);
  return onArg(name, field, description, (v) => {
    const text = v.value === null || v.value === undefined ? undefined : String(v.value);
    if (text !== undefined && wanted.includes(text))
      return { status: 'met', detail: said(field, v), at: v.at };
    return {
      status: 'not-met',
      detail:
        text === undefined
          ? `--${field.replace(/_/g, '-')} is not set`
          : `${said(field, v)} is not ${wanted.join(' / ')}`,
      at: v.at,
    };
  });
}

/** The attention backend SGLang runs for a phase (its own flag, else --attention-backend). */
export function backendOf(
  d: Deployment,
  phase: 'prefill' | 'decode',
): ReturnType<typeof sglArg> & { field: string } {
  const own = sglArg(d, `${phase}_attention_backend`);
  if (own.source !== 'default' && own.value != null) return { ...own, field: `${phase}_attention_backend` };
  return { ...sglArg(d, 'attention_backend'), field: 'attention_backend' };
}

export function attentionBackend(
  name: string,
  backends: readonly string[],
  phases: readonly ('prefill' | 'decode')[],
  description: string,
): Condition {
  return {
    name,
    description,
    check(d: Deployment): ConditionResult {
      const seen = phases.map((p) => ({ p, v: backendOf(d, p) }));
      const hit = seen.find((s) => s.v.value != null && backends.includes(String(s.v.value)));
      if (hit) return { status: 'met', detail: `${hit.p}: ${said(hit.v.field, hit.v)}`, at: hit.v.at };
      const unknown = seen.find((s) => s.v.source === 'unknown');
      if (unknown)
        return {
          status: 'unknown',
          detail: `the attention backend is unknown: ${unknown.v.why}`,
          at: unknown.v.at,
        };
      const shown = seen.map((s) => `${s.p} ${String(s.v.value ?? 'unset')}`).join(', ');
      return {
        status: 'not-met',
        detail: `the attention backend (${shown}) is not ${backends.join(' / ')}`,
        at: seen[0]?.v.at,
      };
    },
  };
}

/** Speculative decoding with one of `algorithms` (as SGLang runs it: NEXTN is EAGLE). */
export function speculative(algorithms: readonly string[], name = 'speculative-decoding'): Condition {
  return {
    name,
    description: `speculative decoding with ${algorithms.join(' / ')} (NEXTN runs as EAGLE)`,
    check(d: Deployment): ConditionResult {
      const v = sglArg(d, 'speculative_algorithm');
      if (v.value == null) return { status: 'not-met', detail: 'no --speculative-algorithm', at: d.at };
      const algo = String(v.value).toUpperCase();
      const written = d.sglang?.written.get('speculative_algorithm')?.value;
      const alias =
        written !== undefined && String(written).toUpperCase() !== algo
          ? ` (written ${String(written)})`
          : '';
      return algorithms.includes(algo)
        ? { status: 'met', detail: `speculative decoding with ${algo}${alias}`, at: v.at }
        : {
            status: 'not-met',
            detail: `speculative decoding with ${algo}${alias}, not ${algorithms.join(' / ')}`,
            at: v.at,
          };
    },
  };
}

/** An integer argument compared with a bound. */
export function intAbove(name: string, field: string, floor: number, description: string): Condition {
  return onArg(name, field, description, (v) => {
    const n = typeof v.value === 'number' ? v.value : Number(v.value ?? NaN);
    if (!Number.isFinite(n))
      return {
        status: 'unknown',
        detail: `--${field.replace(/_/g, '-')} ${String(v.value)} is not a number`,
        at: v.at,
      };
    return n > floor
      ? { status: 'met', detail: said(field, v), at: v.at }
      : { status: 'not-met', detail: `${said(field, v)} is not above ${floor}`, at: v.at };
  });
}

/** The launch sets an environment variable to one of `values`. */
export function envIs(
  name: string,
  variable: string,
  values: readonly string[],
  description: string,
): Condition {
  return {
    name,
    description,
    check(d: Deployment): ConditionResult {
      const e = d.env.get(variable);
      if (!e) return { status: 'not-met', detail: `${variable} is not set`, at: d.at };
      if (e.value.startsWith('$'))
        return { status: 'unknown', detail: `${variable}=${e.value} is set at run time`, at: e.at };
      return values.includes(e.value)
        ? { status: 'met', detail: `${variable}=${e.value}`, at: e.at }
        : { status: 'not-met', detail: `${variable}=${e.value}`, at: e.at };
    },
  };
}
