/**
 * Expansion of lexed shell words against the variables a script sets, as far as a static
 * reader can: `$X`, `${X}`, `${X:-default}` and friends; unquoted expansions are field-split on
 * blanks as bash does. What cannot be known here (a variable the caller sets, `$(cmd)`, `$1`)
 * stays as written and leaves a note, so a finding can say "this value came from `$PORT`".
 * Globs and `~` are not expanded: the launch may run on another machine.
 */
import type { SourceLocation } from '../../core/errors.js';
import type { Located } from '../../core/located.js';
import type { ParamPart, Word, WordPart } from './shell-lexer.js';
import type { Locate } from './text-position.js';

export interface ShellVar {
  value: string;
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
}

export interface ExpandEnv {
  vars: Map<string, ShellVar>;
  locate: Locate;
  /** Collects notes made during expansion. */
  notes: Located<string>[];
  /** Says why an unset variable is unknown, e.g. "is not set in serve.sh". */
  unsetReason: string;
}

interface Piece {
  text: string;
  offsets: number[];
  /** Subject to field splitting (an unquoted expansion whose value we know). */
  splittable: boolean;
  /** Makes a field exist even when empty ("" or ''). */
  forcesField: boolean;
}

const IFS_WHITESPACE = /[ \t\n]/;

/** Expands a word; `split` false for assignment values and other single-field contexts. */
export function expandWord(word: Word, env: ExpandEnv, split: boolean): Field[] {
  const meaningful = word.parts.filter((p) => !(p.kind === 'literal' && p.text === ''));
  const only = meaningful.length === 1 ? meaningful[0] : undefined;
  if (split && only && only.kind === 'param' && (only.name === '@' || only.name === '*') && !only.op) {
    note(env, `"${only.raw}" (the arguments the script is called with) is not known here; left out`, only.start);
    return [];
  }
  const pieces = word.parts.map((p) => expandPart(p, env));
  if (!split) {
    const f: Field = { text: '', offsets: [] };
    for (const p of pieces) append(f, p);
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
  return fields;
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
  if (part.kind === 'subst') {
    note(env, `${part.raw} is not run by faultline; kept as written`, part.start);
    return asWritten(part.raw, part.start, part.quoted);
  }
  const value = paramValue(part, env);
  if (value === undefined) return asWritten(part.raw, part.start, part.quoted);
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
  const defaulted = (value: string) => {
    note(env, `${part.name} ${env.unsetReason}; used its default "${value}" (the caller may override it)`, part.start);
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
      env.vars.set(part.name, { value, exported: v?.exported ?? false, at: env.locate(part.start), notes: [] });
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

function note(env: ExpandEnv, text: string, offset: number): void {
  env.notes.push({ value: text, at: env.locate(offset) });
}
