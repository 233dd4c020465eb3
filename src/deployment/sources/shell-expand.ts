/**
 * Expansion of lexed shell words against the variables a script sets, as far as a static
 * reader can: `$X`, `${X}`, `${X:-default}` and friends; unquoted expansions are field-split on
 * blanks as bash does. What cannot be known here (a variable the caller sets, `$(cmd)`, `$1`)
 * stays as written and leaves a note, so a finding can say "this value came from `$PORT`".
 * Globs and `~` are not expanded: the launch may run on another machine.
 */
import type { SourceLocation } from '../../core/errors.js';
import type { Located } from '../../core/located.js';
import type { ArrayPart, ParamPart, Word, WordPart } from './shell-lexer.js';
import type { RuntimeValue } from '../vllm-parse-types.js';
import type { ArgField } from './arg-field.js';
import type { Locate } from './text-position.js';

export interface ShellVar {
  value: string;
  /** A bash array (`A=(x y)`): its elements; `value` is then the first element. */
  array?: Field[];
  /** The value was computed from something known only at run time (`TP=$((N / 2))`). */
  runtime?: RuntimeValue;
  exported: boolean;
  /** Where it was assigned. */
  at?: SourceLocation;
  /** Notes made while computing its value (e.g. a default used), repeated wherever it is used. */
  notes: Located<string>[];
}

/** An expanded word: its text and, per character, the offset it came from in the parsed text. */
export interface Field {
  text: string;
  offsets: number[];
  /** Parts known only at run time (kept as written in `text`). */
  runtime?: RuntimeValue;
  /**
   * The whole word is an unquoted expansion known only at run time (`$EXTRA_ARGS`): it may stand
   * for any number of words, so it is not one argument.
   */
  spread?: boolean;
  /** A word that came in from outside the script (a positional parameter), with its own location. */
  located?: ArgField;
}

export interface ExpandEnv {
  vars: Map<string, ShellVar>;
  /** The script's positional parameters ($1 …, "$@"), when known (`bash -c SCRIPT -- a b`, a function call). */
  positional?: Field[];
  locate: Locate;
  /** Collects notes made during expansion. */
  notes: Located<string>[];
  /** Says why an unset variable is unknown, e.g. "is not set in serve.sh". */
  unsetReason: string;
}

interface Piece {
  text: string;
  offsets: number[];
  /** Set when the piece is an expansion known only at run time. */
  runtime?: RuntimeValue;
  /** Subject to field splitting (an unquoted expansion whose value we know). */
  splittable: boolean;
  /** Makes a field exist even when empty ("" or ''). */
  forcesField: boolean;
  /** A run-time piece whose words the script wrote (a variable it sets from run-time parts): never a spread. */
  wordsKnown?: boolean;
}

const IFS_WHITESPACE = /[ \t\n]/;
/** Variable names that hold a list of arguments rather than one value. */
const ARG_LIST_NAME = /ARGS|FLAGS|OPTS|OPTIONS|PARAMS|EXTRA|ARGUMENTS/i;

/** Expands a word; `split` false for assignment values and other single-field contexts. */
export function expandWord(word: Word, env: ExpandEnv, split: boolean): Field[] {
  const meaningful = word.parts.filter((p) => !(p.kind === 'literal' && p.text === ''));
  const only = meaningful.length === 1 ? meaningful[0] : undefined;
  if (split && only && only.kind === 'param' && (only.name === '@' || only.name === '*') && !only.op) {
    if (env.positional) return env.positional.map((f) => ({ ...f }));
    note(env, `"${only.raw}" (the arguments the script is called with) is not known here; left out`, only.start);
    return [];
  }
  if (split && only && only.kind === 'param' && only.index !== undefined) {
    const elements = arrayElements(only, env);
    if (elements) return only.quoted ? elements : elements.flatMap((e) => splitField(e));
  }
  const pieces = word.parts.map((p) => expandPart(p, env));
  const runtime = pieces.find((p) => p.runtime)?.runtime;
  if (!split) {
    const f: Field = { text: '', offsets: [] };
    for (const p of pieces) append(f, p);
    if (runtime) f.runtime = runtime;
    return [f];
  }
  // An unquoted expansion known only at run time, alone, named like a list of arguments
  // ($EXTRA_ARGS, $VLLM_FLAGS, $OPTS): it may be zero words or many. Others ($PORT, $MODEL) stand for one.
  if (
    pieces.length > 0 &&
    pieces.every(
      (p) => (p.runtime && !p.forcesField && !p.wordsKnown) || (p.text === '' && !p.forcesField),
    ) &&
    pieces.some(
      (p) =>
        p.runtime && (p.runtime.names.some((n) => ARG_LIST_NAME.test(n)) || p.runtime.text.startsWith('$(')),
    )
  ) {
    const f: Field = { text: pieces.map((p) => p.text).join(''), offsets: pieces.flatMap((p) => p.offsets), spread: true };
    if (runtime) f.runtime = runtime;
    return [f];
  }
  const fields: Field[] = [];
  let cur: Field = { text: '', offsets: [] };
  let started = false;
  for (const p of pieces) {
    if (!p.splittable) {
      append(cur, p);
      started ||= p.forcesField || p.text !== '';
      continue;
    }
    for (let i = 0; i < p.text.length; i++) {
      if (IFS_WHITESPACE.test(p.text[i])) {
        if (started) fields.push(cur);
        cur = { text: '', offsets: [] };
        started = false;
      } else {
        cur.text += p.text[i];
        cur.offsets.push(p.offsets[i]);
        started = true;
      }
    }
  }
  if (started) fields.push(cur);
  if (runtime) for (const f of fields) if (f.text.includes('$') || f.text.includes('`')) f.runtime = runtime;
  return fields;
}

/** The elements of `NAME=( … )`, each expanded and field-split like command words. */
export function expandArray(part: ArrayPart, env: ExpandEnv): Field[] {
  return part.elements.flatMap((w) => expandWord(w, env, true));
}

/** Field splitting of one already expanded field (an unquoted array element). */
function splitField(f: Field): Field[] {
  const out: Field[] = [];
  let cur: Field = { text: '', offsets: [] };
  for (let i = 0; i < f.text.length; i++) {
    if (IFS_WHITESPACE.test(f.text[i])) {
      if (cur.text) out.push(cur);
      cur = { text: '', offsets: [] };
    } else {
      cur.text += f.text[i];
      cur.offsets.push(f.offsets[i]);
    }
  }
  if (cur.text) out.push(cur);
  return out;
}

/** `${ARR[@]}`, `${ARR[*]}`, `${ARR[2]}`: the array's elements (one field each), or undefined when not an array. */
function arrayElements(part: ParamPart, env: ExpandEnv): Field[] | undefined {
  const v = env.vars.get(part.name);
  if (!v?.array) {
    if (!v) note(env, `${part.name} ${env.unsetReason}; kept as ${part.raw}`, part.start);
    return v ? [{ text: v.value, offsets: Array.from(v.value, () => part.start) }] : undefined;
  }
  env.notes.push(...v.notes);
  if (part.index === '@' || part.index === '*') return v.array.map((f) => ({ ...f }));
  const k = Number(part.index);
  return v.array[k] ? [{ ...v.array[k] }] : [];
}

/** Expands parts into one string (heredoc bodies, `${X:-word}` defaults). */
export function expandParts(parts: WordPart[], env: ExpandEnv): Field {
  const f: Field = { text: '', offsets: [] };
  for (const p of parts) append(f, expandPart(p, env));
  return f;
}

function append(f: Field, p: Piece): void {
  f.text += p.text;
  f.offsets.push(...p.offsets);
}

function expandPart(part: WordPart, env: ExpandEnv): Piece {
  if (part.kind === 'literal') {
    return { text: part.text, offsets: part.offsets, splittable: false, forcesField: part.quoted };
  }
  if (part.kind === 'array') {
    const f: Field = { text: '', offsets: [] };
    for (const el of expandArray(part, env)) {
      if (f.text) append(f, { text: ' ', offsets: [part.start], splittable: false, forcesField: false });
      append(f, { text: el.text, offsets: el.offsets, splittable: false, forcesField: false });
    }
    return { text: f.text, offsets: f.offsets, splittable: false, forcesField: true };
  }
  if (part.kind === 'subst') {
    const arithmetic = arithmeticValue(part.raw, env);
    if (arithmetic !== undefined)
      return { text: arithmetic, offsets: Array.from(arithmetic, () => part.start), splittable: !part.quoted, forcesField: part.quoted };
    note(env, `${part.raw} is not run by faultline; kept as written`, part.start);
    return { ...asWritten(part.raw, part.start, part.quoted), runtime: { text: part.raw, why: `${part.raw} is computed when the script runs`, names: varsIn(part.raw) } };
  }
  if (/^\d$/.test(part.name) && env.positional && !part.op) {
    const f = part.name === '0' ? undefined : env.positional[Number(part.name) - 1];
    // A positional parameter keeps what its caller's word was: a run-time value stays one.
    if (f)
      return {
        text: f.text,
        offsets: f.offsets,
        splittable: !part.quoted,
        forcesField: part.quoted,
        ...(f.runtime ? { runtime: f.runtime, wordsKnown: true } : {}),
      };
  }
  if (part.kind === 'param' && !part.op && env.vars.get(part.name)?.runtime) {
    // A variable the script sets from run-time parts (`COMMON="--tp $TP --x"`): its words are known,
    // so an unquoted use is split like any other; only the words holding the run-time part stay unknown.
    const v = env.vars.get(part.name);
    const raw = v?.value ?? part.raw;
    return {
      text: raw,
      offsets: Array.from(raw, () => part.start),
      splittable: !part.quoted,
      forcesField: part.quoted,
      runtime: v?.runtime,
      wordsKnown: true,
    };
  }
  const value = paramValue(part, env);
  if (value === undefined)
    return { ...asWritten(part.raw, part.start, part.quoted), runtime: { text: part.raw, why: `${part.raw} ${/^[A-Za-z_]/.test(part.name) ? env.unsetReason : 'is a parameter of the running script'}`, names: /^[A-Za-z_]/.test(part.name) ? [part.name] : [] } };
  return {
    text: value,
    offsets: Array.from(value, () => part.start),
    splittable: !part.quoted,
    forcesField: part.quoted,
  };
}

function asWritten(raw: string, start: number, quoted: boolean): Piece {
  return { text: raw, offsets: Array.from(raw, (_, i) => start + i), splittable: false, forcesField: quoted };
}

/** The value of a parameter expansion, or undefined when it cannot be known statically. */
function paramValue(part: ParamPart, env: ExpandEnv): string | undefined {
  if (/^[1-9]$/.test(part.name) && (part.op === ':-' || part.op === '-')) {
    const value = expandParts(part.arg ?? [], env).text;
    if (value !== '') {
      note(
        env,
        `${part.raw}: the script's argument ${part.name} is not known here; used its default "${value}" (the caller may override it)`,
        part.start,
      );
      return value;
    }
  }
  if (!/^[A-Za-z_]\w*$/.test(part.name)) {
    note(env, `${part.raw} is a shell parameter (script argument, pid, status …) that is not known here; kept as written`, part.start);
    return undefined;
  }
  if (part.op === 'complex') {
    note(env, `${part.raw} is not evaluated by faultline; kept as written`, part.start);
    return undefined;
  }
  const v = env.vars.get(part.name);
  if (v) env.notes.push(...v.notes);
  const arg = () => expandParts(part.arg ?? [], env).text;
  const unset = () => note(env, `${part.name} ${env.unsetReason}; kept as ${part.raw}`, part.start);
  // An empty default (`${X:-}`, `${X-}`) only keeps `set -u` quiet: the value is the caller's, known at run time.
  const defaulted = (value: string) => {
    if (value === '') {
      note(
        env,
        `${part.name} ${env.unsetReason}; its default is empty, so its value is the caller's (known only when the launch runs)`,
        part.start,
      );
      return undefined;
    }
    note(
      env,
      `${part.name} ${env.unsetReason}; used its default "${value}" (the caller may override it)`,
      part.start,
    );
    return value;
  };
  switch (part.op) {
    case undefined:
      if (!v) unset();
      return v?.value;
    case ':-':
      return v && v.value !== '' ? v.value : v ? arg() : defaulted(arg());
    case '-':
      return v ? v.value : defaulted(arg());
    case ':=':
    case '=': {
      if (v && (part.op === '=' || v.value !== '')) return v.value;
      const value = v ? arg() : defaulted(arg());
      if (value === undefined) return undefined;
      env.vars.set(part.name, {
        value,
        exported: v?.exported ?? false,
        at: env.locate(part.start),
        notes: [],
      });
      return value;
    }
    case ':+':
      if (!v) unset();
      return v ? (v.value !== '' ? arg() : '') : undefined;
    case '+':
      if (!v) unset();
      return v ? arg() : undefined;
    case ':?':
    case '?':
      if (!v) unset();
      return v?.value;
  }
}

/**
 * `$((…))` over integers and variables the script (or --set) gives: + - * / % and parentheses,
 * integer division truncating toward zero as in bash. Anything else: undefined (known at run time).
 */
export function arithmeticValue(raw: string, env: ExpandEnv): string | undefined {
  if (!raw.startsWith('$((') || !raw.endsWith('))')) return undefined;
  let unknown = false;
  const expr = raw.slice(3, -2).replace(/\$?\{?([A-Za-z_]\w*)\}?/g, (_, name: string) => {
    const v = env.vars.get(name);
    if (!v || v.runtime || !/^\s*-?\d+\s*$/.test(v.value)) unknown = true;
    return v ? `(${v.value.trim()})` : '0';
  });
  if (unknown || !/^[\d\s+\-*/%()]+$/.test(expr)) return undefined;
  const value = evalInt(expr);
  return value === undefined ? undefined : String(value);
}

/** Integer expression evaluation by recursive descent (no eval). */
function evalInt(expr: string): number | undefined {
  const tokens = expr.match(/\d+|[+\-*/%()]/g) ?? [];
  let k = 0;
  const primary = (): number | undefined => {
    const t = tokens[k++];
    if (t === '(') {
      const v = sum();
      return tokens[k++] === ')' ? v : undefined;
    }
    if (t === '-') {
      const v = primary();
      return v === undefined ? undefined : -v;
    }
    return t !== undefined && /^\d+$/.test(t) ? Number(t) : undefined;
  };
  const product = (): number | undefined => {
    let v = primary();
    while (v !== undefined && (tokens[k] === '*' || tokens[k] === '/' || tokens[k] === '%')) {
      const op = tokens[k++];
      const r = primary();
      if (r === undefined || (op !== '*' && r === 0)) return undefined;
      v = op === '*' ? v * r : op === '/' ? Math.trunc(v / r) : v % r;
    }
    return v;
  };
  const sum = (): number | undefined => {
    let v = product();
    while (v !== undefined && (tokens[k] === '+' || tokens[k] === '-')) {
      const op = tokens[k++];
      const r = product();
      if (r === undefined) return undefined;
      v = op === '+' ? v + r : v - r;
    }
    return v;
  };
  const v = sum();
  return k === tokens.length && v !== undefined && Number.isSafeInteger(v) ? v : undefined;
}

/** Variable names a `$(…)` / `$((…))` text refers to: what `--set NAME=VALUE` could settle. */
function varsIn(raw: string): string[] {
  if (!raw.startsWith('$((')) return [];
  return [...new Set(raw.slice(3, -2).match(/[A-Za-z_]\w*/g) ?? [])];
}

function note(env: ExpandEnv, text: string, offset: number): void {
  env.notes.push({ value: text, at: env.locate(offset) });
}
