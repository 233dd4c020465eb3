/**
 * The two rewriting passes vLLM's FlexibleArgumentParser applies before argparse sees the argv
 * (vllm/utils/argparse_utils.py, research/configs-and-cli.md §2.2):
 *
 * 1. spelling: in every `--` token, underscores become dashes in the name part only (between
 *    `--` and the first `.`, and before any `=`); `-O3` / `-O=3` / `-O 3` become
 *    `--optimization-level 3`. Single-dash aliases are left alone.
 * 2. dotted keys: every `-…` token whose name contains `.` (`--attention-config.backend=X`,
 *    `-cc.pass_config.fuse_allreduce_rms true`, `--x.list+ a,b`) is removed with its value,
 *    deep-merged per literal prefix token (lists concatenate), and re-emitted at the END as
 *    `<prefix> <json>`. So the dotted form of a flag always beats a plain JSON form of it, and the
 *    two are never merged (argparse keeps the last) — the caller notes when that drops keys.
 */
import { UserError, type SourceLocation } from '../core/errors.js';
import type { Located } from '../core/located.js';
import type { PreparedToken } from './argv-token.js';
import { dottedValue, isPlainObject } from './vllm-values.js';

const NEGATIVE_NUMBER = /^-\d+$|^-\d*\.\d+$/;

/** argparse's test for a negative-number-looking argument (taken as a value, not an option). */
export function isNegativeNumber(text: string): boolean {
  return NEGATIVE_NUMBER.test(text);
}

/** Pass 1: option spelling. */
export function normalizeSpelling(tokens: readonly PreparedToken[]): PreparedToken[] {
  const out: PreparedToken[] = [];
  for (let k = 0; k < tokens.length; k++) {
    const tok = tokens[k];
    const t = tok.text;
    if (t.startsWith('--')) {
      const eq = t.indexOf('=');
      const key = eq < 0 ? t : t.slice(0, eq);
      const rest = eq < 0 ? '' : t.slice(eq);
      const dot = key.indexOf('.');
      const name = dot < 0 ? key : key.slice(0, dot);
      const tail = dot < 0 ? '' : key.slice(dot);
      out.push({ ...tok, text: name.replace(/_/g, '-') + tail + rest });
    } else if (t.startsWith('-O') && t !== '-O' && t[2] !== '.') {
      // -O3, -O=3, -Odecode → --optimization-level <v>. (-O.key=v is the legacy compilation-config form: pass 2.)
      const level = t[2] === '=' ? t.slice(3) : t.slice(2);
      out.push({ ...tok, text: '--optimization-level' }, { ...tok, text: level });
    } else if (t === '-O' && ['0', '1', '2', '3'].includes(tokens[k + 1]?.text ?? '')) {
      out.push({ ...tok, text: '--optimization-level' });
    } else {
      out.push(tok);
    }
  }
  return out;
}

interface DottedGroup {
  prefix: PreparedToken;
  value: Record<string, unknown>;
  keyAt: Record<string, SourceLocation>;
}

/** Pass 2: collect dotted sub-keys into one JSON object per prefix token, appended at the end. */
export function mergeDottedArgs(tokens: readonly PreparedToken[]): {
  tokens: PreparedToken[];
  notes: Located<string>[];
} {
  const notes: Located<string>[] = [];
  const removed = new Set<number>();
  const groups = new Map<string, DottedGroup>();
  for (let k = 0; k < tokens.length; k++) {
    if (removed.has(k)) continue;
    const tok = tokens[k];
    const t = tok.text;
    if (!t.startsWith('-') || !t.includes('.') || isNegativeNumber(t)) continue;
    let key: string;
    let valueText: string;
    const eq = t.indexOf('=');
    if (eq >= 0) {
      key = t.slice(0, eq);
      valueText = t.slice(eq + 1);
      if (!key.includes('.')) continue; // the dot was only in the value: `--download-dir=/a.b`
    } else {
      const next = tokens[k + 1];
      if (next === undefined) {
        throw new UserError(`argument ${t}: expected a value`, {
          code: 'E_VLLM_ARGS',
          at: tok.at,
          hint: `give the sub-key a value: ${t}=VALUE or ${t} VALUE`,
        });
      }
      key = t;
      valueText = next.text;
      removed.add(k + 1);
    }
    removed.add(k);
    let value: unknown;
    if (key.endsWith('+')) {
      key = key.slice(0, -1);
      value = valueText.split(',');
    } else {
      value = dottedValue(valueText);
    }
    const [prefix, ...path] = key.split('.');
    let group = groups.get(prefix);
    if (!group) {
      group = {
        prefix: {
          text: prefix,
          at: tok.at,
          origin: 'dotted',
          ...(prefix === '-O' ? { forcedDest: 'compilation_config' } : {}),
        },
        value: {},
        keyAt: {},
      };
      groups.set(prefix, group);
      if (prefix === '-O') {
        notes.push({
          value:
            '-O.<key> is the form of vLLM releases where -O was the alias of --compilation-config; read as ' +
            'compilation_config. Current vLLM reads -O<x> as --optimization-level and rejects this form.',
          at: tok.at,
        });
      }
    }
    const nested = path.reduceRight<unknown>((inner, part) => setOwn({}, part, inner), value);
    const duplicates = deepUpdate(group.value, nested as Record<string, unknown>);
    for (const d of duplicates) {
      notes.push({ value: `${prefix}.${d} is given more than once; the last value wins`, at: tok.at });
    }
    if (tok.at) group.keyAt[path.join('.')] = tok.at;
  }
  const out = tokens.filter((_, k) => !removed.has(k));
  for (const g of groups.values()) {
    out.push(g.prefix, {
      text: JSON.stringify(g.value),
      at: g.prefix.at,
      origin: 'dotted',
      preparsed: { value: g.value, keyAt: g.keyAt },
    });
  }
  return { tokens: out, notes };
}

/** vLLM's recursive_dict_update: dicts merge, lists concatenate, anything else is replaced. */
function deepUpdate(original: Record<string, unknown>, update: Record<string, unknown>): string[] {
  const duplicates: string[] = [];
  for (const [k, v] of Object.entries(update)) {
    const cur = Object.hasOwn(original, k) ? original[k] : undefined;
    if (isPlainObject(v) && isPlainObject(cur)) {
      duplicates.push(...deepUpdate(cur, v).map((d) => `${k}.${d}`));
    } else if (Array.isArray(v) && Array.isArray(cur)) {
      cur.push(...(v as unknown[]));
    } else {
      if (Object.hasOwn(original, k)) duplicates.push(k);
      setOwn(original, k, v);
    }
  }
  return duplicates;
}

/** Define an own property, so a key such as `__proto__` stays data and never touches a prototype. */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  return obj;
}
