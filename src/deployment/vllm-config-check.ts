/**
 * Value checks of the sub-keys of `--speculative-config`, `--attention-config` and
 * `--compilation-config`, made as vLLM makes them (pydantic's lax mode over the fields in
 * vllm-config-fields.ts, plus the speculative checks that need no model): a value vLLM refuses
 * at start-up is a UserError at the sub-key's location, as `--max-model-len banana` is, never a
 * value read as "not set". A sub-key vLLM 0.23 does not have, and (off that release) a name outside
 * a field's set of names (a new speculative method, backend, mode), is a flag problem — lint's
 * FL000 — read as written: vLLM 0.23 refuses it, a newer release may have it.
 *
 * Lax mode, as vLLM's pydantic applies it: an int field takes an int, an integral float, a
 * numeric string, or a bool; a float field takes numbers, numeric strings and bools; a bool field
 * takes the values `configBool` knows; a str field takes only strings; a Literal only its exact
 * values. Where pydantic's string parsing is uncertain (signs, underscores, "3.0") faultline
 * accepts, so that nothing vLLM starts with is refused.
 */
import { UserError, type SourceLocation } from '../core/errors.js';
import { CONFIG_FIELDS_VERSION, CONFIG_FLAG_FIELDS, OLDER_RELEASE_KEYS, type ConfigFields, type FieldSpec, type FieldType } from './vllm-config-fields.js';
import type { ArgValue } from './vllm-parse-types.js';
import { reportUnknown, type UnknownValueSink } from './unknown-values.js';
import { closest } from './vllm-flags.js';
import { configBool, isPlainObject } from './vllm-values.js';
import { parseVersion } from './versions.js';

const FLAG_OF: Record<string, string> = {
  speculative_config: '--speculative-config',
  attention_config: '--attention-config',
  compilation_config: '--compilation-config',
};

const INT_TEXT = /^\s*[+-]?\d+(?:_\d+)*(?:\.0*)?\s*$/;
const FLOAT_TEXT = /^\s*[+-]?(?:(?:\d+(?:_\d+)*)?\.?\d+(?:_\d+)*(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)\s*$/i;

/** The number a lax int field reads, or undefined when pydantic refuses the value. */
function laxInt(v: unknown): number | undefined {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number') return Number.isInteger(v) ? v : undefined;
  if (typeof v === 'string' && INT_TEXT.test(v)) return Math.trunc(Number(v.trim().replace(/_/g, '')));
  return undefined;
}

function laxFloat(v: unknown): number | undefined {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && FLOAT_TEXT.test(v)) {
    const t = v.trim().toLowerCase();
    if (t.includes('nan')) return NaN;
    if (t.includes('inf')) return t.startsWith('-') ? -Infinity : Infinity;
    return Number(t.replace(/_/g, ''));
  }
  return undefined;
}

const show = (v: unknown): string => (typeof v === 'string' ? `'${v}'` : JSON.stringify(v));

/** "one of a, b, c" — long lists cut, with the nearest name first when the value is a near miss. */
function oneOf(v: unknown, options: readonly (string | number)[]): string {
  const near = typeof v === 'string' ? closest(v, options.filter((o): o is string => typeof o === 'string')) : undefined;
  const listed = options.length > 10 ? `${options.slice(0, 8).map(show).join(', ')}, … (${options.length} in all)` : options.map(show).join(', ');
  return `${show(v)} is not one of ${listed}${near ? `; did you mean ${show(near)}?` : ''}`;
}

/** Why the value does not fit the type, or undefined when vLLM accepts it. */
function mismatch(v: unknown, t: FieldType): string | undefined {
  switch (t.kind) {
    case 'any':
      return undefined;
    case 'bool':
      return configBool(v) === undefined ? `${show(v)} is not a boolean (true/false, 1/0, "yes"/"no", "on"/"off")` : undefined;
    case 'int': {
      const n = laxInt(v);
      if (n === undefined) return `${show(v)} is not an integer`;
      if (t.gt !== undefined && !(n > t.gt)) return `${n} must be greater than ${t.gt}`;
      if (t.ge !== undefined && !(n >= t.ge)) return `${n} must be ${t.ge} or more`;
      return undefined;
    }
    case 'float':
      return laxFloat(v) === undefined ? `${show(v)} is not a number` : undefined;
    case 'str':
      return typeof v === 'string' ? undefined : `${show(v)} is not a string`;
    case 'literal':
      if (t.values.includes(v as string | number)) return undefined;
      // an int Literal also takes what a lax int would read (2.0, "2")
      if (t.values.every((x) => typeof x === 'number') && t.values.includes(laxInt(v) as number)) return undefined;
      return oneOf(v, t.values);
    case 'enum-name':
      if (typeof v === 'string') return t.names.includes(v.toUpperCase()) ? undefined : oneOf(v.toUpperCase(), t.names);
      if (typeof v === 'number' && t.values?.includes(v)) return undefined;
      return oneOf(v, [...t.names, ...(t.values ?? [])]);
    case 'list':
      if (!Array.isArray(v)) return `${show(v)} is not a list`;
      for (const [i, item] of v.entries()) {
        const why = mismatch(item, t.item);
        if (why) return `item ${i}: ${why}`;
      }
      return undefined;
    case 'dict':
      return isPlainObject(v) ? undefined : `${show(v)} is not an object`;
    case 'object':
      return isPlainObject(v) ? undefined : `${show(v)} is not an object`;
    case 'one-of':
      return t.types.some((x) => mismatch(v, x) === undefined) ? undefined : `${show(v)} is not ${t.types.map((x) => x.kind).join(' or ')}`;
  }
}

/** How the sub-keys are judged: the sink for what the fields do not know, and whether they are the launch's release. */
export interface ConfigCheckContext extends UnknownValueSink {
  /** The launch's vLLM version, when known. */
  vllmVersion?: string;
}

interface Walk {
  dest: string;
  keyAt: Record<string, SourceLocation>;
  at?: SourceLocation;
  ctx: ConfigCheckContext;
  /** The fields are the launch's own release: what they lack, vLLM refuses for certain. */
  authoritative: boolean;
}

/** Whether vllm-config-fields.ts (read at one release) is the launch's own release. */
export function configFieldsAreRelease(version: string | undefined): boolean {
  const v = version ? parseVersion(version) : undefined;
  const own = parseVersion(CONFIG_FIELDS_VERSION);
  if (!v || !own || v.pre || v.dev !== undefined) return false;
  return v.release[0] === own.release[0] && (v.release[1] ?? 0) === own.release[1];
}

/** A value of the right kind outside a set of names (Literal, enum): a newer release may have added it. */
function outsideNames(v: unknown, t: FieldType): boolean {
  switch (t.kind) {
    case 'literal':
      return typeof v === 'string' && t.values.some((x) => typeof x === 'string');
    case 'enum-name':
      return typeof v === 'string';
    case 'list':
      return Array.isArray(v) && v.some((item) => mismatch(item, t.item) !== undefined && outsideNames(item, t.item));
    case 'one-of':
      return t.types.some((x) => outsideNames(v, x));
    default:
      return false;
  }
}

function locate(w: Walk, path: string): SourceLocation | undefined {
  return w.keyAt[path] ?? w.keyAt[path.split('.')[0]] ?? w.at;
}

function refuse(w: Walk, path: string, why: string, hint?: string): never {
  throw new UserError(`${w.dest}.${path}: ${why}; vLLM refuses to start with it`, {
    code: 'E_VLLM_ARGS',
    at: locate(w, path),
    hint: hint ?? `fix the value in ${FLAG_OF[w.dest]} (vLLM ${CONFIG_FIELDS_VERSION}: vllm/config/ validates every sub-key)`,
  });
}

function checkFields(w: Walk, value: Record<string, unknown>, fields: ConfigFields, prefix: string): void {
  for (const [key, v] of Object.entries(value)) {
    const path = prefix ? `${prefix}.${key}` : key;
    const spec: FieldSpec | undefined = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (!spec && !prefix && w.ctx.vllmVersion === undefined && OLDER_RELEASE_KEYS[w.dest]?.includes(key)) {
      const at = locate(w, path);
      w.ctx.notes.push({
        value: `${w.dest}.${path} is a key of older vLLM releases, not of vLLM ${CONFIG_FIELDS_VERSION} (which refuses it); faultline did not check its value`,
        ...(at ? { at } : {}),
      });
      continue;
    }
    if (!spec) {
      const at = locate(w, path);
      const near = closest(key, Object.keys(fields));
      reportUnknown(
        w.ctx,
        {
          kind: 'sub-key',
          option: `${w.dest}.${path}`,
          ...(at ? { at } : {}),
          ...(near ? { suggestion: near } : {}),
          definite: w.authoritative,
          checkedAgainst: `the ${FLAG_OF[w.dest]} keys of vLLM ${CONFIG_FIELDS_VERSION}`,
        },
        `${w.dest}.${path} is not a key vLLM ${CONFIG_FIELDS_VERSION} knows: that release refuses to start with it (its configs forbid unknown keys); if your vLLM has it, faultline did not check its value`,
      );
      continue;
    }
    if (v === null || v === undefined) continue; // "not set" (a non-optional field then keeps its default)
    const why = mismatch(v, spec.type);
    if (why && !w.authoritative && outsideNames(v, spec.type)) {
      unknownName(w, path, v, why);
      continue;
    }
    if (why) refuse(w, path, why);
    if (spec.type.kind === 'object') checkFields(w, v as Record<string, unknown>, spec.type.fields, path);
  }
}

/** A name vLLM 0.23 does not have, off that release: perhaps a newer release's (FL000), read as written. */
function unknownName(w: Walk, path: string, v: unknown, why: string): void {
  const at = locate(w, path);
  const near = typeof v === 'string' ? /did you mean '([^']+)'/.exec(why)?.[1] : undefined;
  reportUnknown(
    w.ctx,
    {
      kind: 'sub-key-value',
      option: `${w.dest}.${path}`,
      value: typeof v === 'string' ? v : JSON.stringify(v),
      ...(at ? { at } : {}),
      ...(near ? { suggestion: near } : {}),
      checkedAgainst: `the ${FLAG_OF[w.dest]} values of vLLM ${CONFIG_FIELDS_VERSION}`,
    },
    `${w.dest}.${path}: ${why} (vLLM ${CONFIG_FIELDS_VERSION}); a newer release may have it: taken as given`,
  );
}

/** vLLM's own speculative checks that need no model: SpeculativeConfig._verify_args, __post_init__, _validate_suffix_decoding. */
function checkSpeculative(w: Walk, c: Record<string, unknown>): void {
  if (c.tensor_parallel_size !== undefined && c.tensor_parallel_size !== null)
    refuse(w, 'tensor_parallel_size', 'is not a valid argument in the speculative_config', "pass 'draft_tensor_parallel_size' instead");
  const method = typeof c.method === 'string' ? (c.method === '[ngram]' ? 'ngram' : c.method) : undefined;
  const lmin = laxInt(c.prompt_lookup_min);
  const lmax = laxInt(c.prompt_lookup_max);
  if ((method === 'ngram' || method === 'ngram_gpu') && lmin !== undefined && lmax !== undefined && lmin > lmax)
    refuse(w, 'prompt_lookup_min', `prompt_lookup_min=${lmin} must be <= prompt_lookup_max=${lmax}`);
  if (method === 'suffix') {
    const bounds: [string, (x: number) => boolean, string][] = [
      ['suffix_decoding_max_tree_depth', (x) => x >= 1, 'must be >= 1'],
      ['suffix_decoding_max_cached_requests', (x) => x >= 0, 'must be >= 0'],
      ['suffix_decoding_max_spec_factor', (x) => x >= 0, 'must be >= 0'],
      ['suffix_decoding_min_token_prob', (x) => x >= 0 && x <= 1, 'must be in [0, 1]'],
    ];
    for (const [key, ok, what] of bounds) {
      const x = laxFloat(c[key]);
      if (x !== undefined && c[key] !== null && !ok(x)) refuse(w, key, `${key}=${x} ${what}`);
    }
  }
  checkSynthetic(w, c);
}

function checkSynthetic(w: Walk, c: Record<string, unknown>): void {
  const rates = Array.isArray(c.synthetic_acceptance_rates) ? (c.synthetic_acceptance_rates as unknown[]).map(laxFloat) : undefined;
  const length = c.synthetic_acceptance_length === null ? undefined : laxFloat(c.synthetic_acceptance_length);
  if (c.rejection_sample_method !== 'synthetic') {
    if (rates !== undefined || length !== undefined)
      refuse(w, rates ? 'synthetic_acceptance_rates' : 'synthetic_acceptance_length', "is only valid with rejection_sample_method='synthetic'");
    return;
  }
  if ((rates === undefined) === (length === undefined))
    refuse(w, 'rejection_sample_method', "'synthetic' requires exactly one of synthetic_acceptance_rates or synthetic_acceptance_length");
  const k = laxInt(c.num_speculative_tokens);
  if (rates) {
    if (k !== undefined && rates.length !== k) refuse(w, 'synthetic_acceptance_rates', `must have length ${k} (num_speculative_tokens)`);
    if (rates.some((r) => r === undefined || !(r >= 0 && r <= 1))) refuse(w, 'synthetic_acceptance_rates', 'entries must be in [0, 1]');
    if (rates.some((r, i) => i > 0 && (r as number) > (rates[i - 1] as number))) refuse(w, 'synthetic_acceptance_rates', 'must be non-increasing');
  } else if (k !== undefined && !(length! >= 1 && length! <= k + 1)) refuse(w, 'synthetic_acceptance_length', `must be in [1, ${k + 1}]`);
}

/** The hook the argv emulation calls once the arguments are parsed. */
export function checkConfigValues(args: Map<string, ArgValue>, ctx: ConfigCheckContext): void {
  const authoritative = configFieldsAreRelease(ctx.vllmVersion);
  for (const [dest, fields] of Object.entries(CONFIG_FLAG_FIELDS)) {
    const arg = args.get(dest);
    if (!arg || !isPlainObject(arg.value)) continue;
    const w: Walk = { dest, keyAt: arg.keyAt ?? {}, ...(arg.at ? { at: arg.at } : {}), ctx, authoritative };
    // Sub-keys known only at run time hold their text as written: nothing to check in them.
    const known = arg.runtimeKeys ? withoutKeys(arg.value, Object.keys(arg.runtimeKeys)) : arg.value;
    checkFields(w, known, fields, '');
    if (dest === 'speculative_config') checkSpeculative(w, known);
  }
}

function withoutKeys(value: Record<string, unknown>, dotted: string[]): Record<string, unknown> {
  const copy = structuredClone(value);
  for (const path of dotted) {
    const keys = path.split('.');
    let node: unknown = copy;
    for (const key of keys.slice(0, -1)) node = isPlainObject(node) ? node[key] : undefined;
    if (isPlainObject(node)) delete node[keys[keys.length - 1]];
  }
  return copy;
}
