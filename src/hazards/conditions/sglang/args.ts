/**
 * Reading an SGLang launch's effective arguments (deployment/engines/sglang: what SGLang runs after
 * its rewrites), falling back to the release's ServerArgs default, and saying which it was. A value
 * SGLang derives from facts the launch does not show is unknown, with the reason.
 */
import type { SourceLocation } from '../../../core/errors.js';
import type { Deployment } from '../../../deployment/deployment.js';

export interface SglangValue {
  value: unknown;
  at?: SourceLocation;
  /** written: on the command line; rewritten: SGLang changed or chose it; default: ServerArgs' default. */
  source: 'written' | 'rewritten' | 'default' | 'unknown';
  /** For 'unknown': why SGLang's choice cannot be known from the launch. */
  why?: string;
}

/**
 * ServerArgs fields a later release renamed, old → new (the old flag stays as a deprecated alias
 * storing into the new field): a condition names the field once and reads it in every release.
 */
const RENAMED_FIELDS: Record<string, string> = {
  mamba_scheduler_strategy: 'mamba_radix_cache_strategy',
};

/** The name `field` has in the launch's release. */
function fieldInRelease(d: Deployment, field: string): string {
  const renamed = RENAMED_FIELDS[field];
  return renamed !== undefined && d.sglang !== undefined && !(field in d.sglang.defaults) && renamed in d.sglang.defaults
    ? renamed
    : field;
}

export function sglArg(d: Deployment, named: string): SglangValue {
  const field = fieldInRelease(d, named);
  const why = d.sglang?.unknown.get(field);
  if (why) return { value: undefined, source: 'unknown', why, ...(d.at ? { at: d.at } : {}) };
  const a = d.args.get(field);
  if (a && a.value !== null && a.value !== undefined) {
    const rewritten = d.sglang?.rewrites.some((r) => r.field === field);
    return { value: a.value, ...(a.at ? { at: a.at } : {}), source: rewritten ? 'rewritten' : 'written' };
  }
  return { value: d.sglang?.defaults[field] ?? null, source: 'default' };
}

/** `--kv-cache-dtype fp8_e4m3`, or `the default kv_cache_dtype auto`, for a detail sentence. */
export function said(field: string, v: SglangValue): string {
  const flag = `--${field.replace(/_/g, '-')}`;
  const shown = typeof v.value === 'boolean' ? (v.value ? flag : `no ${flag}`) : `${flag} ${String(v.value)}`;
  if (v.source === 'rewritten') {
    return `${shown} (set by SGLang itself)`;
  }
  if (v.source === 'default') return `${shown} (SGLang's default)`;
  return shown;
}

export function isOn(v: SglangValue): boolean {
  return v.value === true;
}
