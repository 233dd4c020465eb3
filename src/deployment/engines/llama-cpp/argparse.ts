/**
 * llama-server's argument parsing (common/arg.cpp, common_params_parse_ex), emulated from its flag
 * table:
 *   - LLAMA_ARG_* variables are applied first, then the command line; a flag for the same option wins
 *     (llama-server warns "environment variable is set, but will be overwritten"). A switch's variable
 *     counts only when it is on/enabled/true/1; a negatable switch's `LLAMA_ARG_NO_*` twin turns it off.
 *   - every word is looked up whole: there are no prefix abbreviations, `--a_b` is read as `--a-b`,
 *     and `--name=value` is not split (llama-server: "invalid argument: --name=value"); a word that is
 *     no option — a stray positional — is refused the same way;
 *   - a value is the next word, whatever it looks like (`-ngl -1`); an int goes through std::stoi;
 *     an option whose handler compares words (`-fa on|off|auto`, `-fit`) takes only those words.
 * What llama-server would refuse is a flag problem (lint's FL000): certain against the launch's own
 * release table, "possibly" otherwise. The rest is still read, with the value as written, so no
 * fact hides behind it. Builds from before `-fa` took a value wrote a bare `-fa` (on); followed by
 * another option or at the end, it is read as on with a note, not as a problem.
 */
import type { SourceLocation } from '../../../core/errors.js';
import type { Located } from '../../../core/located.js';
import type { ArgToken } from '../../argv-token.js';
import { closest, editDistance } from '../../vllm-flags.js';
import type { ArgValue, FlagProblem, RuntimeValue } from '../../vllm-parse-types.js';
import {
  nameKey,
  optionIndex,
  optionKey,
  type LlamaCppFlagTable,
  type LlamaCppOption,
} from './flag-table.js';

/** A parsed option: the value llama-server would hold, with where and how it was given. */
export interface LlamaArg extends ArgValue {
  /** The spelling that set it: `-c`, `--ctx-size` (for `--ctx_size` too), or the variable `LLAMA_ARG_CTX_SIZE`. */
  option: string;
  from: 'flag' | 'env';
  /** The table's option; absent for a flag the table does not have (kept under its spelled name). */
  spec?: LlamaCppOption;
  /** The LLAMA_ARG_* value a flag replaced. */
  overridden?: { value: unknown; option: string; from: 'env'; at?: SourceLocation };
}

export interface LlamaArgvParse {
  /** Option key (`ctx_size`, `flash_attn` …) → the value llama-server runs with. */
  args: Map<string, LlamaArg>;
  /** What llama-server would refuse, or what the table lacks (FL000). */
  flagProblems: FlagProblem[];
  notes: Located<string>[];
  /** The LLAMA_ARG_* variables read. */
  envRead: { name: string; option: string }[];
  /** Unquoted run-time expansions (`$EXTRA_ARGS`): any option left at its default may be set by one. */
  spreads: { text: string; names: string[]; at?: SourceLocation }[];
}

export interface ParseLlamaOptions {
  table: LlamaCppFlagTable;
  /** The table is the launch's own release: what it refuses, llama-server refuses for certain. */
  authoritative: boolean;
  /** The environment that reaches the server process. */
  env?: Map<string, Located<string>>;
}

const RUNTIME = /\$\{|\$\(|\$[A-Za-z_]/;
const TRUTHY = ['on', 'enabled', 'true', '1'];
const FALSEY = ['off', 'disabled', 'false', '0'];
const AUTOY = ['auto', '-1'];

/** An option whose handler compares on/off words (`-fa`, `-fit`, `-rea`, `--log-colors`). */
function isOnOff(o: LlamaCppOption): boolean {
  return Boolean(o.accepts?.includes('on') && o.accepts.includes('off'));
}

/** on/off/auto spelled any way the handler takes it → `on` | `off` | `auto`. */
export function onOffValue(text: string): 'on' | 'off' | 'auto' | undefined {
  if (TRUTHY.includes(text)) return 'on';
  if (FALSEY.includes(text)) return 'off';
  if (AUTOY.includes(text)) return 'auto';
  return undefined;
}

/** std::stoi: leading spaces, a sign, digits; whatever follows is ignored; out of int range throws. */
export function stoi(text: string): number | undefined {
  const m = /^\s*([+-]?\d+)/.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  return n > 2147483647 || n < -2147483648 ? undefined : n;
}

/** std::stof: the longest decimal (or inf / nan) prefix. */
export function stof(text: string): number | undefined {
  const m = /^\s*([+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan))/i.exec(text);
  if (!m) return undefined;
  const t = m[1].toLowerCase().replace(/^\+/, '');
  if (t.endsWith('inf') || t.endsWith('infinity')) return t.startsWith('-') ? -Infinity : Infinity;
  if (t.endsWith('nan')) return NaN;
  return Number(t);
}

type Converted =
  { value: unknown; note?: string } | { problem: 'value' | 'choice'; why: string; suggestion?: string };

function convert(o: LlamaCppOption, text: string, spelled: string): Converted {
  switch (o.kind) {
    case 'int': {
      if (o.accepts?.includes(text)) return { value: text };
      const n = stoi(text);
      if (n === undefined)
        return {
          problem: 'value',
          why: `not an integer (llama.cpp reads ${spelled} with std::stoi${o.accepts ? `, or one of ${o.accepts.join(', ')}` : ''})`,
        };
      return String(n) === text.trim()
        ? { value: n }
        : {
            value: n,
            note: `${spelled} ${text}: read as ${n} (std::stoi stops at the first character that is no digit)`,
          };
    }
    case 'float': {
      const x = stof(text);
      if (x === undefined)
        return { problem: 'value', why: `not a number (llama.cpp reads ${spelled} with std::stof)` };
      return { value: x };
    }
    case 'string': {
      if (o.choices && o.accepts) {
        if (o.accepts.includes(text)) return { value: isOnOff(o) ? (onOffValue(text) ?? text) : text };
        const near = closest(text, o.accepts);
        return {
          problem: 'choice',
          why: `one of ${o.accepts.map((a) => a || "''").join(', ')}`,
          ...(near ? { suggestion: near } : {}),
        };
      }
      if (o.choices) {
        const allowed = [...o.choices, ...(o.default && !o.choices.includes(o.default) ? [o.default] : [])];
        const list = o.value?.includes(',');
        const items = list ? text.split(',').map((s) => s.trim()) : [text];
        const bad = items.filter((i) => !allowed.includes(i));
        if (bad.length) {
          const near = closest(bad[0], allowed);
          return {
            problem: 'choice',
            why: `one of ${allowed.join(', ')}`,
            ...(near ? { suggestion: near } : {}),
          };
        }
        return { value: list ? items : text };
      }
      return { value: text };
    }
    default:
      return { value: true };
  }
}

function at(a: SourceLocation | undefined): { at?: SourceLocation } {
  return a ? { at: a } : {};
}

function runtimeOf(tok: { text: string; runtime?: RuntimeValue }, why: string): RuntimeValue | undefined {
  if (tok.runtime) return tok.runtime;
  if (!RUNTIME.test(tok.text)) return undefined;
  const names = [...tok.text.matchAll(/\$\{?\(?([A-Za-z_]\w*)/g)].map((m) => m[1]);
  return { text: tok.text, why, names };
}

export function parseLlamaServerArgv(tokens: readonly ArgToken[], opts: ParseLlamaOptions): LlamaArgvParse {
  const { table, authoritative } = opts;
  const idx = optionIndex(table);
  const out: LlamaArgvParse = { args: new Map(), flagProblems: [], notes: [], envRead: [], spreads: [] };
  const tag = table.llamaCppTag;
  const note = (value: string, where?: SourceLocation) => out.notes.push({ value, ...at(where) });
  const problem = (p: FlagProblem) => out.flagProblems.push(p);
  /** A value the option's conversion refused (`c`), as a flag problem. */
  const valueProblem = (
    c: Extract<Converted, { problem: unknown }>,
    option: string,
    value: string,
    where?: SourceLocation,
  ) =>
    problem({
      kind: c.problem,
      option,
      value,
      ...at(where),
      ...(c.suggestion ? { suggestion: c.suggestion } : {}),
      checkedAgainst: c.why,
      ...(authoritative ? { definite: true } : {}),
    });

  // 1. LLAMA_ARG_* (and the few other variables options name, e.g. HF_TOKEN), in the order they reach the process.
  for (const [name, v] of opts.env ?? []) {
    const hit = idx.byEnv.get(name);
    if (!hit) {
      if (/^LLAMA_ARG_/.test(name))
        note(
          `${name}: not a variable llama-server reads in llama.cpp ${tag} (a build of another time may); ignored`,
          v.at,
        );
      continue;
    }
    const o = hit.option;
    const key = optionKey(o);
    out.envRead.push({ name, option: o.names[o.names.length - 1] });
    const runtime = runtimeOf({ text: v.value }, `${name} is set at run time`);
    if (o.removed) {
      problem({
        kind: 'removed',
        option: name,
        ...at(v.at),
        ...removedHint(o),
        checkedAgainst: `llama.cpp ${tag}`,
        ...(authoritative ? { definite: true } : {}),
      });
    }
    if (runtime) {
      note(`${name}=${v.value}: the value is known only when the launch runs`, v.at);
      out.args.set(key, { value: v.value, runtime, option: name, from: 'env', spec: o, ...at(v.at) });
      continue;
    }
    if (hit.negative) {
      out.args.set(key, { value: false, option: name, from: 'env', spec: o, ...at(v.at) });
      continue;
    }
    if (o.kind === 'switch') {
      if (o.handler === 'bool') {
        const b = TRUTHY.includes(v.value) ? true : FALSEY.includes(v.value) ? false : undefined;
        if (b === undefined) {
          problem({
            kind: 'value',
            option: name,
            value: v.value,
            ...at(v.at),
            checkedAgainst:
              'a boolean (on/enabled/true/1 or off/disabled/false/0); llama-server stops: "invalid boolean value"',
            ...(authoritative ? { definite: true } : {}),
          });
          continue;
        }
        out.args.set(key, { value: b, option: name, from: 'env', spec: o, ...at(v.at) });
      } else if (TRUTHY.includes(v.value))
        out.args.set(key, { value: true, option: name, from: 'env', spec: o, ...at(v.at) });
      else
        note(
          `${name}=${v.value}: llama-server turns ${o.names[o.names.length - 1]} on only for on/enabled/true/1; ignored`,
          v.at,
        );
      continue;
    }
    const c = convert(o, v.value, name);
    if ('problem' in c) {
      valueProblem(c, name, v.value, v.at);
      out.args.set(key, { value: v.value, option: name, from: 'env', spec: o, ...at(v.at) });
      continue;
    }
    if (c.note) note(c.note, v.at);
    out.args.set(key, { value: c.value, option: name, from: 'env', spec: o, ...at(v.at) });
  }

  // 2. The command line.
  const seen = new Map<string, string>();
  const set = (key: string, arg: LlamaArg, tok: ArgToken) => {
    const before = out.args.get(key);
    if (before?.from === 'env') {
      arg.overridden = { value: before.value, option: before.option, from: 'env', ...at(before.at) };
      note(
        `${arg.option} replaces ${before.option}=${String(before.value)} (llama-server reads the variable first; the command line wins)`,
        tok.at,
      );
    } else if (before && seen.has(key) && key !== 'spec_type')
      note(
        `${arg.option} is given again (first as ${seen.get(key)}); llama-server keeps the last value`,
        tok.at,
      );
    seen.set(key, arg.option);
    out.args.set(key, arg);
  };
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i];
    if (tok.spread) {
      note(`${tok.text} may stand for any number of arguments; they are not checked`, tok.at);
      out.spreads.push({ text: tok.text, names: tok.runtime?.names ?? [], ...at(tok.at) });
      continue;
    }
    const text = tok.text;
    let name = text.startsWith('--') ? text.replace(/_/g, '-') : text;
    let inlineValue: string | undefined;
    let hit = idx.byName.get(name);
    if (!hit && text.startsWith('-') && text.includes('=')) {
      const eq = name.indexOf('=');
      const head = idx.byName.get(name.slice(0, eq));
      if (head) {
        inlineValue = text.slice(text.indexOf('=') + 1);
        problem({
          kind: 'unknown',
          option: text,
          ...at(tok.at),
          suggestion: `${name.slice(0, eq)} ${inlineValue}`,
          checkedAgainst: 'llama-server takes each word whole and does not split --name=value',
        });
        name = name.slice(0, eq);
        hit = head;
      }
    }
    if (!hit) {
      if (!text.startsWith('-') || text === '-') {
        if (runtimeOf(tok, 'set at run time')) {
          note(
            `${text}: a word known only when the launch runs, where llama-server expects an option; not checked`,
            tok.at,
          );
          continue;
        }
        // llama-server looks every word up as an option: a positional is "invalid argument", in every release.
        problem({
          kind: 'unknown',
          option: text,
          ...at(tok.at),
          checkedAgainst: 'llama-server takes no positional arguments',
          definite: true,
        });
        continue;
      }
      const other = idx.otherTools.has(name);
      const near = nearestOption(name, idx);
      problem({
        kind: 'unknown',
        option: text,
        ...at(tok.at),
        ...(near ? { suggestion: near } : {}),
        ...(other
          ? {
              checkedAgainst: `an option of other llama.cpp tools (llama-cli …), not of llama-server in llama.cpp ${tag}`,
            }
          : {}),
      });
      // Kept under its spelled name, with its value word when one follows, so the next option is still read.
      const eq = name.indexOf('=');
      let value: unknown = eq > 0 ? name.slice(eq + 1) : true;
      const next = tokens[i + 1];
      if (eq < 0 && next && !looksLikeOption(next.text, idx)) value = tokens[++i].text;
      set(
        nameKey(eq > 0 ? name.slice(0, eq) : name),
        { value, option: text, from: 'flag', ...at(tok.at) },
        tok,
      );
      continue;
    }
    const o = hit.option;
    const key = optionKey(o);
    if (name !== text) note(`${text} is read as ${name} (llama.cpp turns _ into - in long options)`, tok.at);
    if (o.removed)
      problem({
        kind: 'removed',
        option: name,
        ...at(tok.at),
        ...removedHint(o),
        checkedAgainst: `llama.cpp ${tag}`,
        ...(authoritative ? { definite: true } : {}),
      });
    if (o.deprecated) note(`${name} is deprecated in llama.cpp ${tag}: ${o.help}`, tok.at);
    if (o.kind === 'switch') {
      set(
        key,
        {
          value: o.handler === 'bool' ? hit.positive : true,
          option: name,
          from: 'flag',
          spec: o,
          ...at(tok.at),
        },
        tok,
      );
      continue;
    }
    const valueTok: ArgToken | undefined =
      inlineValue !== undefined ? { text: inlineValue, ...at(tok.at) } : tokens[i + 1];
    // A bare on/off option (`-fa` of older builds, a switch then) followed by another option, or last.
    if (
      isOnOff(o) &&
      inlineValue === undefined &&
      (!valueTok || (!o.accepts?.includes(valueTok.text) && looksLikeOption(valueTok.text, idx)))
    ) {
      note(
        `${name} without a value: builds from before ${name} took ${o.value ?? 'a value'} had it as a switch, so it is read as on; llama.cpp ${tag} would take ${valueTok ? `the next word (${valueTok.text})` : 'a missing value'} as its value and refuse to start`,
        tok.at,
      );
      if (authoritative)
        problem({
          kind: 'value',
          option: name,
          value: valueTok?.text ?? '',
          ...at(tok.at),
          checkedAgainst: `a value of ${o.value ?? name} (llama.cpp ${tag} has no bare ${name})`,
          definite: true,
        });
      set(key, { value: 'on', option: name, from: 'flag', spec: o, ...at(tok.at) }, tok);
      continue;
    }
    if (!valueTok) {
      problem({
        kind: 'value',
        option: name,
        value: '',
        ...at(tok.at),
        checkedAgainst: `a value (${o.value ?? 'one word'}); llama-server stops: "expected value for argument"`,
        definite: true,
      });
      continue;
    }
    if (inlineValue === undefined) i++;
    const values: ArgToken[] = [valueTok];
    if (o.handler === 'string,string') {
      const second = tokens[i + 1];
      if (!second) {
        problem({
          kind: 'value',
          option: name,
          value: '',
          ...at(tok.at),
          checkedAgainst: `two values (${o.value} ${o.value2 ?? ''}); llama-server stops: "expected value for argument"`,
          definite: true,
        });
        continue;
      }
      values.push(second);
      i++;
    }
    const runtime = values.map((v) => runtimeOf(v, `${v.text} is set when the launch runs`)).find((r) => r);
    if (runtime) {
      note(
        `${name} ${values.map((v) => v.text).join(' ')}: the value is known only when the launch runs`,
        tok.at,
      );
      set(
        key,
        {
          value: values.map((v) => v.text).join(' '),
          runtime,
          option: name,
          from: 'flag',
          spec: o,
          ...at(tok.at),
        },
        tok,
      );
      continue;
    }
    if (values.length === 2) {
      set(key, { value: values.map((v) => v.text), option: name, from: 'flag', spec: o, ...at(tok.at) }, tok);
      continue;
    }
    const c = convert(o, valueTok.text, name);
    if ('problem' in c) {
      valueProblem(c, name, valueTok.text, tok.at);
      set(key, { value: valueTok.text, option: name, from: 'flag', spec: o, ...at(tok.at) }, tok);
      continue;
    }
    if (c.note) note(c.note, tok.at);
    set(key, { value: c.value, option: name, from: 'flag', spec: o, ...at(tok.at) }, tok);
  }
  return out;
}

/** A word llama-server would look up as an option (not a negative number, not a bare `-`). */
function looksLikeOption(text: string, idx: ReturnType<typeof optionIndex>): boolean {
  if (idx.byName.has(text.startsWith('--') ? text.replace(/_/g, '-') : text)) return true;
  return /^--?[A-Za-z]/.test(text);
}

function removedHint(o: LlamaCppOption): { suggestion?: string } {
  const m = /use (.+?)\s*$/.exec(o.help);
  return m ? { suggestion: m[1].replace(/\.$/, '') } : {};
}

/** A spelling within two edits (a typo), not just the closest of 250 names. */
function nearestOption(name: string, idx: ReturnType<typeof optionIndex>): string | undefined {
  let best: string | undefined;
  let score = 3;
  for (const n of idx.byName.keys()) {
    const d = editDistance(name, n);
    if (d < score) {
      best = n;
      score = d;
    }
  }
  return best;
}
