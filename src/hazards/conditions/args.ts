/**
 * Reading parsed vLLM arguments the way vLLM's own config classes read them: dest names with
 * underscores, JSON-valued flags as merged objects, booleans that may arrive as strings from YAML
 * or dotted sub-keys (pydantic accepts "true"/"1" for a bool field, so we do too).
 */
import type { SourceLocation } from '../../core/errors.js';
import type { Located } from '../../core/located.js';
import type { Deployment } from '../../deployment/deployment.js';

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

export function asString(v: unknown): string | undefined {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}

/** How a flag is shown to the user in a detail sentence: `--kv-cache-dtype fp8_e4m3`. */
export function showFlag(dest: string, value?: unknown): string {
  const flag = `--${dest.replace(/_/g, '-')}`;
  if (value === undefined) return flag;
  if (typeof value === 'boolean') return value ? flag : `--no-${dest.replace(/_/g, '-')}`;
  return `${flag} ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`;
}

export function at(x: { at?: SourceLocation } | undefined): SourceLocation | undefined {
  return x?.at;
}
