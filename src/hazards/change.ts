/**
 * A change to a launch, as data: what a remedy or a non-remedy does, in a form that lint can apply
 * (`lint --suggest` prints the launch with it applied) and that tests apply to a hazard's failing
 * example and lint again. Keys are argparse dests (`kv_cache_dtype`), optionally with a path into
 * a JSON-valued flag (`attention_config.use_trtllm_attention`).
 *
 *   { set: { kv_cache_dtype: 'auto' } }              --kv-cache-dtype auto
 *   { unset: 'speculative_config' }                  drop --speculative-config (every spelling of it)
 *   { add: '--enforce-eager' }                       append the flag (it replaces earlier values of its dest)
 *   { env: { VLLM_BATCH_INVARIANT: '1' } }           set (a string) or remove (null) an environment variable
 *   { versions: { flashinfer: '0.6.18rc2' } }        run this release or a later one
 *   { model: 'gemma-4-31b-it-bf16-kv' }              serve another checkpoint (a model preset, see examples/)
 *
 * Several keys in one change apply together, in the order above.
 */
import { modelPreset } from './examples/models.js';

export type ArgScalar = string | number | boolean;
export type ArgData = ArgScalar | ArgData[] | { [key: string]: ArgData };

export interface LaunchChange {
  /** dest or dest.path → the value it takes (an object for a JSON flag, an array for a list flag). */
  set?: Record<string, ArgData>;
  /** dests or dest.paths to remove from the launch. */
  unset?: string | string[];
  /** argv words to append, spelled as on the command line: '--no-async-scheduling', ['-tp', '1']. */
  add?: string | string[];
  /** environment variables: a value sets it, null removes it. */
  env?: Record<string, string | null>;
  /** run at least this release of the package. */
  versions?: { vllm?: string; flashinfer?: string };
  /** serve the checkpoint of this model preset instead. */
  model?: string;
}

export const list = (x: string | string[] | undefined): string[] =>
  x === undefined ? [] : Array.isArray(x) ? x : [x];

const DEST_PATH = /^[a-z][a-z0-9_]*(?:\.[A-Za-z0-9_]+)*$/;
const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;

/** What is malformed in a change, for defineHazard's checks; empty when it is well formed. */
export function changeProblems(c: LaunchChange): string[] {
  const problems: string[] = [];
  const keys = Object.keys(c);
  if (keys.length === 0) problems.push('an empty change');
  for (const k of Object.keys(c.set ?? {}))
    if (!DEST_PATH.test(k)) problems.push(`set key "${k}" is not a dest[.path]`);
  for (const k of list(c.unset)) if (!DEST_PATH.test(k)) problems.push(`unset "${k}" is not a dest[.path]`);
  const add = list(c.add);
  if (c.add !== undefined && (add.length === 0 || !add[0].startsWith('-')))
    problems.push(`add ${JSON.stringify(c.add)} does not start with an option`);
  for (const k of Object.keys(c.env ?? {}))
    if (!ENV_NAME.test(k)) problems.push(`env "${k}" is not a variable name`);
  if (c.model !== undefined && !modelPreset(c.model)) problems.push(`model "${c.model}" is no model preset`);
  return problems;
}

function showValue(v: ArgData): string {
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** A dest[.path] the way a user writes it: `--kv-cache-dtype`, `attention_config.backend`. */
export function spellDest(key: string): string {
  const dot = key.indexOf('.');
  return dot < 0 ? `--${key.replace(/_/g, '-')}` : key;
}

const PACKAGE = { vllm: 'vLLM', flashinfer: 'flashinfer-python' } as const;

/** The change in words, for findings, docs pages and `--suggest` ("--kv-cache-dtype bfloat16"). */
export function describeChange(c: LaunchChange): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(c.set ?? {})) {
    if (k.includes('.')) parts.push(`${k}=${showValue(v)}`);
    else if (v === true) parts.push(spellDest(k));
    else if (v === false) parts.push(`--no-${k.replace(/_/g, '-')}`);
    else parts.push(`${spellDest(k)} ${Array.isArray(v) ? v.map(showValue).join(' ') : showValue(v)}`);
  }
  for (const k of list(c.unset)) parts.push(`drop ${spellDest(k)}`);
  if (c.add !== undefined) parts.push(list(c.add).join(' '));
  for (const [k, v] of Object.entries(c.env ?? {})) parts.push(v === null ? `unset ${k}` : `${k}=${v}`);
  for (const [pkg, v] of Object.entries(c.versions ?? {}))
    parts.push(`${PACKAGE[pkg as keyof typeof PACKAGE]} ≥ ${v}`);
  if (c.model) parts.push(`serve ${modelPreset(c.model)?.label ?? c.model}`);
  return parts.join(', ');
}

/** A remedy's or non-remedy's change in words: its label, else the generated description. */
export function changeText(r: { change: LaunchChange; label?: string }): string {
  return r.label ?? describeChange(r.change);
}
