/**
 * Reading parsed vLLM arguments the way vLLM's own config classes read them: dest names with
 * underscores, JSON-valued flags as merged objects, booleans that may arrive as strings from YAML
 * or dotted sub-keys (pydantic accepts "true"/"1" for a bool field, so we do too).
 */
import type { SourceLocation } from '../../core/errors.js';
import type { Located } from '../../core/located.js';
import type { Deployment } from '../../deployment/deployment.js';
import { ATTENTION_ENV_REMOVED_IN, ATTENTION_ENV_VARS, readVllmEnv } from '../../deployment/env-vars.js';

export function arg(d: Deployment, dest: string): Located<unknown> | undefined {
  return d.args.get(dest);
}

/** A key inside a JSON-valued flag (e.g. attention_config.use_trtllm_attention), located at the flag. */
export function subArg(d: Deployment, dest: string, key: string): Located<unknown> | undefined {
  const a = d.args.get(dest);
  if (!a || a.value === null || typeof a.value !== 'object' || Array.isArray(a.value)) return undefined;
  const obj = a.value as Record<string, unknown>;
  if (!Object.hasOwn(obj, key)) return undefined;
  // The argv parser records where each sub-key was written (dotted flag, YAML key); prefer that.
  const keyAt = (a as { keyAt?: Record<string, SourceLocation> }).keyAt?.[key];
  const where = keyAt ?? a.at;
  return where ? { value: obj[key], at: where } : { value: obj[key] };
}

export function env(d: Deployment, name: string): Located<string> | undefined {
  return d.env.get(name);
}

export function asBool(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v === 1 ? true : v === 0 ? false : undefined;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (s === 'true' || s === '1' || s === 'yes' || s === 'on') return true;
    if (s === 'false' || s === '0' || s === 'no' || s === 'off') return false;
  }
  return undefined;
}

export function asInt(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v)) return Number.parseInt(v, 10);
  return undefined;
}

/** Any parsed value as text for a message (objects as JSON; never throws). */
export function show(v: unknown): string {
  if (v !== null && typeof v === 'object') {
    try {
      return JSON.stringify(v);
    } catch {
      return '[object]';
    }
  }
  return String(v);
}

export function asString(v: unknown): string | undefined {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}

/** How a flag is shown to the user in a detail sentence: `--kv-cache-dtype fp8_e4m3`. */
export function showFlag(dest: string, value?: unknown): string {
  const flag = `--${dest.replace(/_/g, '-')}`;
  if (value === undefined) return flag;
  if (typeof value === 'boolean') return value ? flag : `--no-${dest.replace(/_/g, '-')}`;
  return `${flag} ${show(value)}`;
}

export function at(x: { at?: SourceLocation } | undefined): SourceLocation | undefined {
  return x?.at;
}

export interface AttentionSetting {
  value: unknown;
  at?: SourceLocation;
  /** How the launch sets it: `attention_config.use_trtllm_attention=false`, or the env var. */
  spelled: string;
  /** Set when the environment may override the command line but the vLLM version is unknown. */
  uncertain?: string;
  /** A remark about an env var this version ignores. */
  note?: string;
}

/**
 * An attention_config field as vLLM resolves it: the command line, overridden by the old attention
 * env var where the vLLM version still reads it (< 0.15.0, deployment/env-vars.ts), ignored where it
 * does not, and uncertain when the version is unknown and the two disagree.
 */
export function attentionSetting(
  d: Deployment,
  field: string,
  opts: { cli?: Located<unknown>; default?: unknown } = {},
): AttentionSetting | undefined {
  const flag = opts.cli ?? subArg(d, 'attention_config', field);
  const fromFlag: AttentionSetting | undefined = flag
    ? { value: flag.value, at: flag.at, spelled: `attention_config.${field}=${show(flag.value)}` }
    : undefined;
  const spec = ATTENTION_ENV_VARS.find((s) => s.field === field);
  const raw = spec ? d.env.get(spec.name) : undefined;
  if (!spec || !raw) return fromFlag;
  const facts = readVllmEnv(new Map([[spec.name, raw]]), d.versions.vllm?.value);
  const envValue = facts.attentionConfig.get(field);
  const envText = `${spec.name}=${raw.value}`;
  if (!envValue) return fromFlag; // unparseable: vLLM would fail or ignore it; the parser notes it
  if (facts.attentionEnvHonoured === 'yes')
    return {
      value: envValue.value,
      at: raw.at,
      spelled: `${envText} (read by vLLM < ${ATTENTION_ENV_REMOVED_IN}, overriding the command line)`,
    };
  const ignored = `${envText} is ignored (vLLM ≥ ${ATTENTION_ENV_REMOVED_IN} removed it, PR #32812)`;
  if (facts.attentionEnvHonoured === 'no')
    return fromFlag
      ? { ...fromFlag, note: ignored }
      : { value: undefined, spelled: `attention_config.${field} unset`, note: ignored };
  if (sameSetting(envValue.value, fromFlag ? fromFlag.value : opts.default))
    return fromFlag ?? { value: envValue.value, at: raw.at, spelled: envText };
  return {
    value: fromFlag?.value,
    at: raw.at,
    spelled: fromFlag?.spelled ?? `attention_config.${field} unset`,
    uncertain: `${envText} overrides attention_config.${field} in vLLM < ${ATTENTION_ENV_REMOVED_IN} and is ignored from ${ATTENTION_ENV_REMOVED_IN} on; the vLLM version is unknown (--vllm-version)`,
  };
}

function sameSetting(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a.toUpperCase() === b.toUpperCase();
  const ba = asBool(a);
  const bb = asBool(b);
  return ba !== undefined && ba === bb;
}
