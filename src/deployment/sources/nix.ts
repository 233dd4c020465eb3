/**
 * NixOS modules (`.nix`) → the servers the NixOS modules of nixpkgs start. Nix is not evaluated: a
 * small reader takes the attribute sets, lists, strings, booleans and numbers written literally
 * (`lib.mkForce X`, `lib.mkDefault X` and `lib.mkIf COND X` are looked through; anything else is an
 * opaque expression), merges attribute paths (`services.ollama.enable = true;` and
 * `services = { ollama = { enable = true; }; }` alike), and reads:
 *   - `services.ollama` (enable = true): `ollama serve`, with `environmentVariables`, `loadModels`
 *     and `systemd.services.ollama.serviceConfig.Environment` ("NAME=value" strings) as its settings;
 *   - `services.llama-cpp` (enable = true): the module's ExecStart, `llama-server --host HOST
 *     --port PORT -m MODEL EXTRAFLAGS…` (its defaults: 127.0.0.1, 8080).
 * A string with `${…}` keeps it as written: a value known only when Nix evaluates the module.
 */
import type { SourceLocation } from '../../core/errors.js';
import type { Located } from '../../core/located.js';
import { synthesized, toToken, type ArgField } from './arg-field.js';
import { newLaunch, type LaunchCommand } from './launch-command.js';
import { fileLocator, type Locate } from './text-position.js';

type NixValue =
  | { kind: 'attrs'; entries: { path: string[]; value: NixValue; at: number }[]; at: number }
  | { kind: 'list'; items: NixValue[]; at: number }
  | { kind: 'string'; value: string; at: number }
  | { kind: 'bool'; value: boolean; at: number }
  | { kind: 'number'; value: number; at: number }
  | { kind: 'other'; text: string; at: number };

interface Tok {
  t: 'id' | 'str' | 'num' | 'p';
  v: string;
  at: number;
}

function tokenize(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) i++;
    else if (c === '#') while (i < src.length && src[i] !== '\n') i++;
    else if (c === '/' && src[i + 1] === '*') {
      const e = src.indexOf('*/', i + 2);
      i = e < 0 ? src.length : e + 2;
    } else if (c === '"') {
      const start = i++;
      let v = '';
      let depth = 0;
      while (i < src.length && (src[i] !== '"' || depth > 0)) {
        if (src[i] === '\\' && i + 1 < src.length) {
          v += { n: '\n', t: '\t', r: '\r' }[src[i + 1]] ?? src[i + 1];
          i += 2;
          continue;
        }
        if (src[i] === '$' && src[i + 1] === '{') depth++;
        else if (src[i] === '}' && depth > 0) depth--;
        v += src[i++];
      }
      i++;
      out.push({ t: 'str', v, at: start + 1 });
    } else if (c === "'" && src[i + 1] === "'") {
      const start = i;
      i += 2;
      let v = '';
      while (
        i < src.length &&
        !(
          src[i] === "'" &&
          src[i + 1] === "'" &&
          src[i + 2] !== "'" &&
          src[i + 2] !== '$' &&
          src[i + 2] !== '\\'
        )
      )
        v += src[i++];
      i += 2;
      out.push({ t: 'str', v: dedent(v), at: start + 2 });
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][\w'-]*/.exec(src.slice(i))?.[0] ?? c;
      out.push({ t: 'id', v: m, at: i });
      i += m.length;
    } else if (/\d/.test(c)) {
      const m = /^\d+(\.\d+)?/.exec(src.slice(i))?.[0] ?? c;
      out.push({ t: 'num', v: m, at: i });
      i += m.length;
    } else {
      out.push({ t: 'p', v: c, at: i });
      i++;
    }
  }
  return out;
}

function dedent(s: string): string {
  const lines = s.replace(/^\n/, '').split('\n');
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => /^ */.exec(l)?.[0].length ?? 0));
  return lines.map((l) => l.slice(Number.isFinite(indent) ? indent : 0)).join('\n');
}

class Parser {
  i = 0;
  constructor(readonly toks: Tok[]) {}
  peek(k = 0): Tok | undefined {
    return this.toks[this.i + k];
  }
  is(v: string, k = 0): boolean {
    return this.peek(k)?.v === v;
  }

  /** One expression, up to (not including) `;`, `,`, `]`, `}`, `)` or `in` at depth 0. */
  expr(): NixValue {
    const t = this.peek();
    if (!t) return { kind: 'other', text: '', at: 0 };
    // function header `{ a, b, ... }:` or `x:` → the body
    if (t.v === '{' && this.isPatternHeader()) {
      this.skipBalanced();
      if (this.is('@')) this.i += 2;
      if (this.is(':')) this.i++;
      return this.expr();
    }
    if (t.t === 'id' && this.is(':', 1)) {
      this.i += 2;
      return this.expr();
    }
    if (t.v === 'let') {
      this.i++;
      this.bindings('in');
      if (this.is('in')) this.i++;
      return this.expr();
    }
    if (t.v === 'with' || t.v === 'assert') {
      this.i++;
      this.skipExpr();
      if (this.is(';')) this.i++;
      return this.expr();
    }
    if (t.v === 'rec' && this.is('{', 1)) this.i++;
    if (this.is('{')) return this.attrs();
    if (t.v === '[') return this.list();
    if (t.v === '(') {
      this.i++;
      const v = this.expr();
      this.skipTo(')');
      this.i++;
      return this.rest(v);
    }
    if (t.t === 'str') {
      this.i++;
      return this.rest({ kind: 'string', value: t.v, at: t.at });
    }
    if (t.t === 'num') {
      this.i++;
      return this.rest({ kind: 'number', value: Number(t.v), at: t.at });
    }
    if (t.v === 'true' || t.v === 'false') {
      this.i++;
      return this.rest({ kind: 'bool', value: t.v === 'true', at: t.at });
    }
    // lib.mkForce X / lib.mkDefault X / lib.mkIf COND X / mkOverride N X: the last argument
    const path = this.dotted();
    if (/(^|\.)(mkForce|mkDefault|mkOverride|mkIf|mkBefore|mkAfter|mkMerge)$/.test(path)) {
      let last: NixValue = { kind: 'other', text: path, at: t.at };
      while (this.peek() && !this.atEnd()) last = this.atom();
      return last;
    }
    this.skipExpr();
    return { kind: 'other', text: path, at: t.at };
  }

  /** After a literal: anything more (`"a" + b`, `x ++ y`) makes the whole expression opaque. */
  rest(v: NixValue): NixValue {
    if (this.atEnd()) return v;
    this.skipExpr();
    return { kind: 'other', text: '', at: v.at };
  }

  atom(): NixValue {
    const t = this.peek();
    if (!t) return { kind: 'other', text: '', at: 0 };
    if (t.v === '{') return this.attrs();
    if (t.v === '[') return this.list();
    if (t.v === '(') {
      this.i++;
      const v = this.expr();
      this.skipTo(')');
      this.i++;
      return v;
    }
    this.i++;
    if (t.t === 'str') return { kind: 'string', value: t.v, at: t.at };
    if (t.t === 'num') return { kind: 'number', value: Number(t.v), at: t.at };
    if (t.v === 'true' || t.v === 'false') return { kind: 'bool', value: t.v === 'true', at: t.at };
    if (t.t === 'id') {
      this.i--;
      return { kind: 'other', text: this.dotted(), at: t.at };
    }
    return { kind: 'other', text: t.v, at: t.at };
  }

  dotted(): string {
    let s = this.peek()?.v ?? '';
    this.i++;
    while (this.is('.') && (this.peek(1)?.t === 'id' || this.peek(1)?.t === 'str')) {
      s += '.' + (this.peek(1)?.v ?? '');
      this.i += 2;
    }
    return s;
  }

  atEnd(): boolean {
    const t = this.peek();
    return !t || [';', ',', ']', '}', ')'].includes(t.v) || t.v === 'in' || t.v === 'then' || t.v === 'else';
  }

  isPatternHeader(): boolean {
    // `{` … matching `}` followed by `:` or `@`
    let depth = 0;
    for (let k = this.i; k < this.toks.length; k++) {
      const v = this.toks[k].v;
      if (v === '{') depth++;
      else if (v === '}' && --depth === 0) return this.toks[k + 1]?.v === ':' || this.toks[k + 1]?.v === '@';
      else if (depth === 1 && v === '=' && this.toks[k - 1]?.t === 'id' && this.toks[k - 2]?.v !== '?') {
        // `{ a = …; }` is an attribute set; `{ a ? d, … }:` a pattern
        return false;
      } else if (depth === 1 && v === ';') return false;
    }
    return false;
  }

  skipBalanced(): void {
    let depth = 0;
    do {
      const v = this.peek()?.v;
      if (v === '{' || v === '[' || v === '(') depth++;
      else if (v === '}' || v === ']' || v === ')') depth--;
      this.i++;
    } while (depth > 0 && this.i < this.toks.length);
  }

  skipExpr(): void {
    while (this.peek() && !this.atEnd()) {
      const v = this.peek()?.v;
      if (v === '{' || v === '[' || v === '(') this.skipBalanced();
      else this.i++;
    }
  }

  skipTo(v: string): void {
    while (this.peek() && !this.is(v)) {
      if (this.is('{') || this.is('[') || this.is('(')) this.skipBalanced();
      else this.i++;
    }
  }

  attrs(): NixValue {
    const at = this.peek()?.at ?? 0;
    this.i++; // {
    const entries = this.bindings('}');
    if (this.is('}')) this.i++;
    return this.rest({ kind: 'attrs', entries, at });
  }

  bindings(end: string): { path: string[]; value: NixValue; at: number }[] {
    const entries: { path: string[]; value: NixValue; at: number }[] = [];
    while (this.peek() && !this.is(end)) {
      if (this.is('inherit')) {
        this.skipTo(';');
        this.i++;
        continue;
      }
      const start = this.peek();
      const path: string[] = [];
      while (this.peek() && (this.peek()?.t === 'id' || this.peek()?.t === 'str')) {
        path.push(this.peek()?.v ?? '');
        this.i++;
        if (this.is('.')) this.i++;
        else break;
      }
      if (!path.length || !this.is('=')) {
        // not a binding we can read: skip to the next `;`
        this.skipTo(';');
        this.i++;
        continue;
      }
      this.i++; // =
      const value = this.expr();
      entries.push({ path, value, at: start?.at ?? 0 });
      this.skipTo(';');
      this.i++;
    }
    return entries;
  }

  list(): NixValue {
    const at = this.peek()?.at ?? 0;
    this.i++;
    const items: NixValue[] = [];
    while (this.peek() && !this.is(']')) items.push(this.atom());
    this.i++;
    return this.rest({ kind: 'list', items, at });
  }
}

/** Every attribute path assigned in the module, flattened: `services.ollama.enable` → its value. */
function flatten(
  v: NixValue,
  prefix: string[] = [],
  out = new Map<string, { value: NixValue; at: number }>(),
): Map<string, { value: NixValue; at: number }> {
  if (v.kind !== 'attrs') return out;
  for (const e of v.entries) {
    const path = [...prefix, ...e.path];
    if (e.value.kind === 'attrs') flatten(e.value, path, out);
    out.set(path.join('.'), { value: e.value, at: e.at });
  }
  return out;
}

export function launchesFromNix(file: string, text: string, baseDir: string): LaunchCommand[] {
  const locate = fileLocator(file, text);
  const root = new Parser(tokenize(text)).expr();
  const attrs = flatten(root);
  const launches: LaunchCommand[] = [];
  const get = (p: string) => attrs.get(p)?.value;
  const enabled = (svc: string) => {
    const e = get(`services.${svc}.enable`);
    return e?.kind === 'bool' && e.value;
  };
  if (enabled('ollama')) {
    const at = locate(attrs.get('services.ollama.enable')?.at ?? 0);
    const launch = newLaunch(
      { file, kind: 'nix', object: 'services.ollama' },
      [synthesized('ollama', at), synthesized('serve', at)].map(toToken),
      baseDir,
    );
    launch.notes.push({ value: 'NixOS services.ollama: its systemd unit runs `ollama serve`', at });
    const vars = get('services.ollama.environmentVariables');
    if (vars?.kind === 'attrs')
      for (const e of vars.entries) setEnv(launch, e.path.join('.'), e.value, locate);
    const env = get('systemd.services.ollama.serviceConfig.Environment');
    for (const s of env?.kind === 'list' ? env.items : env ? [env] : []) {
      if (s.kind !== 'string') continue;
      const eq = s.value.indexOf('=');
      if (eq > 0) launch.env.set(s.value.slice(0, eq), { value: s.value.slice(eq + 1), at: locate(s.at) });
    }
    const models = get('services.ollama.loadModels');
    if (models?.kind === 'list')
      launch.ollamaModels = models.items.flatMap((m) =>
        m.kind === 'string' ? [{ value: m.value, at: locate(m.at) }] : [],
      );
    const accel = get('services.ollama.acceleration');
    if (accel?.kind === 'string')
      launch.notes.push({ value: `services.ollama.acceleration = "${accel.value}"`, at: locate(accel.at) });
    launches.push(launch);
  }
  if (enabled('llama-cpp')) {
    const at = locate(attrs.get('services.llama-cpp.enable')?.at ?? 0);
    const word = (v: NixValue | undefined, fallback: string): ArgField => {
      if (v?.kind === 'string' || v?.kind === 'number') return { text: String(v.value), at: locate(v.at) };
      return synthesized(fallback, at);
    };
    const model = get('services.llama-cpp.model');
    const words: ArgField[] = [
      synthesized('llama-server', at),
      synthesized('--log-disable', at),
      synthesized('--host', at),
      word(get('services.llama-cpp.host'), '127.0.0.1'),
      synthesized('--port', at),
      word(get('services.llama-cpp.port'), '8080'),
      ...(model ? [synthesized('-m', at), word(model, '$MODEL')] : []),
    ];
    const extra = get('services.llama-cpp.extraFlags');
    if (extra?.kind === 'list')
      for (const f of extra.items)
        if (f.kind === 'string' || f.kind === 'number')
          words.push({ text: String(f.value), at: locate(f.at) });
    const launch = newLaunch(
      { file, kind: 'nix', object: 'services.llama-cpp' },
      words.map(toToken),
      baseDir,
    );
    launch.notes.push({
      value:
        'NixOS services.llama-cpp: its systemd unit runs `llama-server --log-disable --host HOST --port PORT -m MODEL` with extraFlags',
      at,
    });
    launches.push(launch);
  }
  return launches;
}

function setEnv(launch: LaunchCommand, name: string, v: NixValue, locate: Locate): void {
  const at: SourceLocation = locate(v.at);
  if (v.kind === 'string' || v.kind === 'number') launch.env.set(name, { value: String(v.value), at });
  else if (v.kind === 'bool') launch.env.set(name, { value: v.value ? '1' : '', at });
  else
    launch.notes.push({
      value: `environmentVariables.${name} is an expression faultline does not evaluate; its value is unknown`,
      at,
    } satisfies Located<string>);
}
