/**
 * Shell scripts → vLLM launches. Walks the script's simple commands in order, keeping the
 * variables it sets (`X=…`, `export X=…`, `declare -x`, `set -a`, `unset`), the files it writes
 * with heredocs (`cat > config.yaml <<EOF`), and turns each command that starts vLLM into a
 * LaunchCommand with the environment that reaches it. Branches are not evaluated: a variable
 * set in an `if` counts from there on, which is what a reader of the script would assume.
 */
import { basename, resolve } from 'node:path';
import { UserError } from '../../core/errors.js';
import type { Located } from '../../core/located.js';
import type { LaunchSource } from '../deployment.js';
import type { RuntimeValue } from '../vllm-parse-types.js';
import type { ArgField } from './arg-field.js';
import { findLaunch } from './launch-start.js';
import { newLaunch, type LaunchCommand, type VirtualFile } from './launch-command.js';
import { collectFunctions } from './shell-functions.js';
import { expandArray, expandParts, expandWord, type ExpandEnv, type Field, type ShellVar } from './shell-expand.js';
import { parseHeredocBody, parseShell, ShellSyntaxError, type ArrayPart, type SimpleCommand, type Word } from './shell-lexer.js';
import { fileLocator, type Locate } from './text-position.js';

export interface ShellContext {
  /** Where launches found here come from. */
  source: LaunchSource;
  baseDir: string;
  locate: Locate;
  /** Completes "X … ; kept as $X", e.g. "is not set in serve.sh". */
  unsetReason: string;
  /** Exported variables the script starts with (a container's env, for `sh -c`). */
  env?: Map<string, Located<string>>;
  /** Variables the script starts with, not exported (`lint --set`). */
  vars?: Map<string, Located<string>>;
  /** Files written earlier (by an enclosing script). */
  files?: Map<string, VirtualFile>;
  /** Nesting of `sh -c` inside scripts; deeper levels are not followed. */
  depth?: number;
  /** The script's positional parameters (`bash -c SCRIPT $0 $1 …`), when known. */
  positional?: Field[];
}

/** The words after `-c SCRIPT` as the script's `$0`, `$1` …: its positional parameters are `$1` on. */
export function positionalFrom(args: ArgField[] | undefined): Field[] | undefined {
  if (!args || args.length === 0) return undefined;
  return args.slice(1).map((a) => ({
    text: a.text,
    offsets: Array.from(a.text, () => 0),
    ...(a.runtime ? { runtime: a.runtime } : {}),
    located: a,
  }));
}

const MAX_DEPTH = 4;
const SKIPPED_KEYWORDS = new Set(['!', '{', '}', 'if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', 'time', 'esac']);
const COMPOUND_HEADS = new Set(['for', 'case', 'select', 'function']);
const ASSIGNMENT = /^([A-Za-z_]\w*)(\+?)=/;

interface FileBuffer {
  text: string;
  offsets: number[];
}

/** Parses a script and returns every vLLM launch in it, in order. Syntax errors → UserError. */
export function launchesFromShell(text: string, ctx: ShellContext): LaunchCommand[] {
  try {
    // a heredoc body is lexed while the script runs, so its syntax errors come from run()
    return new Interpreter(ctx).run(parseShell(text));
  } catch (e) {
    if (e instanceof ShellSyntaxError)
      throw new UserError(`shell syntax: ${e.message}`, { code: 'E_SHELL_SYNTAX', at: ctx.locate(e.offset), hint: e.hint });
    throw e;
  }
}

/** A shell script file: launches located in it, relative paths resolved against `baseDir`. */
export function launchesFromShellFile(file: string, text: string, baseDir: string, given?: GivenValues): LaunchCommand[] {
  return launchesFromShell(text, {
    source: { file, kind: 'shell' },
    baseDir,
    locate: fileLocator(file, text),
    unsetReason: `is not set in ${basename(file)}`,
    ...(given ? { env: given.env, vars: given.vars } : {}),
  });
}

/** Values the user gives for what a launch file leaves to run time (`lint --set NAME=VALUE`, `--env NAME=VALUE`). */
export interface GivenValues {
  /** Shell / Compose variables (`--set`): not exported. */
  vars: Map<string, Located<string>>;
  /** Environment variables of the launch (`--env`): exported, so they reach the server. */
  env: Map<string, Located<string>>;
}

class Interpreter {
  private readonly vars = new Map<string, ShellVar>();
  private readonly functions = new Map<string, SimpleCommand[]>();
  private readonly called = new Set<string>();
  private positional: Field[] | undefined;
  private callDepth = 0;
  private allexport = false;
  private readonly buffers = new Map<string, FileBuffer>();
  private readonly files: Map<string, VirtualFile>;
  private readonly launches: LaunchCommand[] = [];

  constructor(private readonly ctx: ShellContext) {
    for (const [name, v] of ctx.vars ?? []) this.vars.set(name, { value: v.value, exported: false, at: v.at, notes: [] });
    for (const [name, v] of ctx.env ?? []) this.vars.set(name, { value: v.value, exported: true, at: v.at, notes: [] });
    this.files = new Map(ctx.files ?? []);
    this.positional = ctx.positional;
  }

  run(commands: SimpleCommand[]): LaunchCommand[] {
    this.sequence(collectFunctions(commands, this.functions));
    // A function defined but never called may still be what the file is for (a sourced helper): read it once.
    for (const [name, body] of this.functions)
      if (!this.called.has(name)) {
        const before = this.launches.length;
        this.call(name, body, undefined);
        for (const l of this.launches.slice(before))
          l.notes.push({ value: `function ${name} is defined but not called in this file; its launch is read as if it were`, at: l.tokens[0]?.at });
      }
    return this.launches;
  }

  private sequence(commands: SimpleCommand[]): void {
    for (const c of commands) this.command(c);
  }

  /** Runs a function body with its call's arguments as "$@" (variables stay global, as in bash). */
  private call(name: string, body: SimpleCommand[], args: Field[] | undefined): void {
    if (this.callDepth > 8) return;
    this.called.add(name);
    const saved = this.positional;
    this.positional = args;
    this.callDepth++;
    this.sequence(body);
    this.callDepth--;
    this.positional = saved;
  }

  private expandEnv(notes: Located<string>[]): ExpandEnv {
    return { vars: this.vars, locate: this.ctx.locate, notes, unsetReason: this.ctx.unsetReason, ...(this.positional ? { positional: this.positional } : {}) };
  }

  private command(c: SimpleCommand): void {
    let words = c.words;
    while (words.length && SKIPPED_KEYWORDS.has(plainText(words[0]) ?? '')) words = words.slice(1);
    if (words.length && COMPOUND_HEADS.has(plainText(words[0]) ?? '')) return;

    const notes: Located<string>[] = [];
    const env = this.expandEnv(notes);
    let i = 0;
    const prefix: { name: string; value: Field; append: boolean; word: Word; array?: Field[] }[] = [];
    for (; i < words.length; i++) {
      const a = splitAssignment(words[i]);
      if (!a) break;
      const arrayPart = a.value.parts.find((p): p is ArrayPart => p.kind === 'array');
      const array = arrayPart ? expandArray(arrayPart, env) : undefined;
      prefix.push({ ...a, value: expandWord(a.value, env, false)[0], word: words[i], ...(array ? { array } : {}) });
    }
    const builtin = i < words.length ? plainText(words[i]) : undefined;
    if (builtin === 'export' || builtin === 'declare' || builtin === 'typeset' || builtin === 'local' || builtin === 'readonly') {
      this.declare(words.slice(i + 1), builtin === 'export');
      return;
    }
    const fields = words.slice(i).flatMap((w) => expandWord(w, env, true));
    if (fields.length === 0) {
      for (const a of prefix) this.assign(a.name, a.value.text, a.append, a.word.start, notes, this.allexport, a.array, a.value.runtime);
      return;
    }
    const name = fields[0].text;
    const fn = this.functions.get(name);
    if (fn && prefix.length === 0) {
      this.call(name, fn, fields.slice(1));
      return;
    }
    if (name === 'eval' && fields.length > 1) this.evalWords(c, fields.slice(1));
    else if (name === 'shift') this.positional = this.positional?.slice(Number(fields[1]?.text ?? 1) || 1);
    else if (name === 'unset') for (const f of fields.slice(1)) this.vars.delete(f.text);
    else if (name === 'set') this.set(fields.slice(1).map((f) => f.text));
    else if (name === 'cat' || name === 'tee') this.heredocWrite(c, fields);
    else this.maybeLaunch(c, fields, prefix, notes);
  }

  private assign(name: string, value: string, append: boolean, offset: number, notes: Located<string>[], exported: boolean, array?: Field[], runtime?: RuntimeValue): void {
    const old = this.vars.get(name);
    const elements = array && (append && old ? [...(old.array ?? [{ text: old.value, offsets: [] }]), ...array] : array);
    this.vars.set(name, {
      value: elements ? (elements[0]?.text ?? '') : append && old ? old.value + value : value,
      ...(elements ? { array: elements } : {}),
      ...(runtime ? { runtime } : {}),
      exported: exported || (old?.exported ?? false),
      at: this.ctx.locate(offset),
      notes: dedupe(notes),
    });
  }

  /**
   * `export A=1 B`, `declare -x A=1`, `local -a A=(x y)`, `readonly A=(x y)`: assignments without
   * field splitting; an array value keeps its elements, as the same assignment without the builtin does.
   */
  private declare(words: Word[], exportAll: boolean): void {
    const exported = exportAll || words.some((w) => /^-\w*x/.test(plainText(w) ?? ''));
    for (const w of words) {
      const a = splitAssignment(w);
      const notes: Located<string>[] = [];
      if (a) {
        const env = this.expandEnv(notes);
        const arrayPart = a.value.parts.find((p): p is ArrayPart => p.kind === 'array');
        const array = arrayPart ? expandArray(arrayPart, env) : undefined;
        const value = expandWord(a.value, env, false)[0];
        this.assign(
          a.name,
          value.text,
          a.append,
          w.start,
          notes,
          exported || this.allexport,
          array,
          value.runtime,
        );
      } else if (exported) {
        const v = this.vars.get(plainText(w) ?? '');
        if (v) v.exported = true;
      }
    }
  }

  private set(args: string[]): void {
    for (let k = 0; k < args.length; k++) {
      const a = args[k];
      if ((a === '-o' || a === '+o') && args[k + 1] === 'allexport') this.allexport = a === '-o';
      else if (/^-[a-zA-Z]*a/.test(a)) this.allexport = true;
      else if (/^\+[a-zA-Z]*a/.test(a)) this.allexport = false;
    }
  }

  /** `cat > FILE <<EOF … EOF`, `cat <<EOF >> FILE`, `tee FILE <<EOF`: remembers FILE's text. */
  private heredocWrite(c: SimpleCommand, fields: Field[]): void {
    const heredoc = c.redirects.find((r) => r.heredoc)?.heredoc;
    if (!heredoc) return;
    const out = c.redirects.find((r) => (r.op === '>' || r.op === '>>' || r.op === '>|') && !r.fd && r.target);
    const notes: Located<string>[] = [];
    const env = this.expandEnv(notes);
    const target = out?.target ? expandWord(out.target, env, false)[0].text : fields.slice(1).find((f) => !f.text.startsWith('-'))?.text;
    if (!target) return;
    const body = expandParts(parseHeredocBody(heredoc), env);
    const path = resolve(this.ctx.baseDir, target);
    const previous = out?.op === '>>' ? this.buffers.get(path) : undefined;
    const buffer = previous ? { text: previous.text + body.text, offsets: [...previous.offsets, ...body.offsets] } : body;
    this.buffers.set(path, buffer);
    this.files.set(path, virtualFile(buffer, this.ctx.locate));
  }

  private maybeLaunch(c: SimpleCommand, fields: Field[], prefix: { name: string; value: Field; word: Word }[], notes: Located<string>[]): void {
    const outer = this.exportedEnv();
    for (const a of prefix) outer.set(a.name, { value: a.value.text, at: this.ctx.locate(a.word.start) });
    const match = findLaunch(fields.map((f) => this.argField(f, c)), { hostEnv: (n) => outer.get(n) ?? this.shellVar(n) });
    if (!match) return;
    const env = match.envReplaced ? new Map(match.env) : new Map([...outer, ...match.env]);
    const allNotes = dedupe([...notes, ...match.notes]);
    if (match.notLaunch) {
      const rec = newLaunch(this.ctx.source, [], this.ctx.baseDir);
      rec.notLaunch = match.notLaunch;
      this.launches.push(rec);
    } else if (match.tokens) {
      const launch = newLaunch(this.ctx.source, match.tokens, this.ctx.baseDir);
      if (match.wrapper) launch.extraFlags = match.wrapper.extraFlags;
      launch.env = env;
      launch.files = new Map(this.files);
      launch.image = match.image;
      launch.mounts = match.mounts;
      launch.notes = allNotes;
      this.launches.push(launch);
    } else if (match.script && (this.ctx.depth ?? 0) < MAX_DEPTH) {
      const script = match.script;
      const inner = launchesFromShell(script.text, {
        ...this.ctx,
        locate: (o) => script.charAt?.(o) ?? script.at ?? this.ctx.locate(c.start),
        env,
        files: this.files,
        depth: (this.ctx.depth ?? 0) + 1,
        positional: positionalFrom(match.scriptArgs),
      });
      for (const l of inner) {
        l.image ??= match.image;
        if (!l.mounts.length) l.mounts = match.mounts;
        l.notes = dedupe([...allNotes, ...l.notes]);
        this.launches.push(l);
      }
    }
  }

  /** `eval WORDS`: the words joined by spaces are run as a script, with this script's variables and "$@". */
  private evalWords(c: SimpleCommand, fields: Field[]): void {
    if ((this.ctx.depth ?? 0) >= MAX_DEPTH) return;
    const text = fields.map((f) => f.text).join(' ');
    const offsets = fields.flatMap((f, k) => (k ? [f.offsets[0] ?? c.start, ...f.offsets] : f.offsets));
    const vars = new Map<string, Located<string>>();
    for (const [n, v] of this.vars) if (!v.exported) vars.set(n, v.at ? { value: v.value, at: v.at } : { value: v.value });
    const inner = launchesFromShell(text, {
      ...this.ctx,
      locate: (o) => this.ctx.locate(offsets[Math.min(o, offsets.length - 1)] ?? c.start),
      env: this.exportedEnv(),
      vars,
      files: this.files,
      depth: (this.ctx.depth ?? 0) + 1,
      ...(this.positional ? { positional: this.positional } : {}),
    });
    this.launches.push(...inner);
  }

  private argField(f: Field, c: SimpleCommand): ArgField {
    if (f.located) return f.located;
    const locate = this.ctx.locate;
    const first = f.offsets[0] ?? c.start;
    return {
      text: f.text,
      at: locate(first),
      charAt: (i) => locate(f.offsets[Math.min(i, f.offsets.length - 1)] ?? first),
      ...(f.runtime ? { runtime: f.runtime } : {}),
      ...(f.spread ? { spread: true } : {}),
    };
  }

  private exportedEnv(): Map<string, Located<string>> {
    const env = new Map<string, Located<string>>();
    for (const [name, v] of this.vars) if (v.exported) env.set(name, v.at ? { value: v.value, at: v.at } : { value: v.value });
    return env;
  }

  private shellVar(name: string): Located<string> | undefined {
    const v = this.vars.get(name);
    return v && (v.at ? { value: v.value, at: v.at } : { value: v.value });
  }
}

/** The text of a word that is one plain literal (keywords, option names). */
function plainText(w: Word): string | undefined {
  return w.parts.length === 1 && w.parts[0].kind === 'literal' && !w.parts[0].quoted ? w.parts[0].text : undefined;
}

/** `NAME=value` (or `NAME+=value`) with NAME written unquoted → name and the value as a word. */
function splitAssignment(w: Word): { name: string; append: boolean; value: Word } | undefined {
  const first = w.parts[0];
  if (!first || first.kind !== 'literal' || first.quoted) return undefined;
  const m = ASSIGNMENT.exec(first.text);
  if (!m) return undefined;
  const cut = m[0].length;
  const head = { ...first, text: first.text.slice(cut), offsets: first.offsets.slice(cut) };
  return { name: m[1], append: m[2] === '+', value: { parts: [head, ...w.parts.slice(1)], start: w.start + cut, end: w.end } };
}

function virtualFile(buffer: FileBuffer, locate: Locate): VirtualFile {
  const lineStarts = [0];
  for (let i = 0; i < buffer.text.length; i++) if (buffer.text[i] === '\n') lineStarts.push(i + 1);
  return {
    text: buffer.text,
    locate(line, column) {
      const start = lineStarts[line - 1];
      if (start === undefined) return undefined;
      const offset = buffer.offsets[start + column - 1] ?? buffer.offsets[start];
      return offset === undefined ? undefined : locate(offset);
    },
  };
}

function dedupe(notes: Located<string>[]): Located<string>[] {
  const seen = new Set<string>();
  return notes.filter((n) => {
    const key = `${n.value}@${n.at?.file}:${n.at?.line}:${n.at?.column}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
