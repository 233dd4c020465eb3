/**
 * SGLang's argument parsing, emulated from its flag table: a plain `argparse.ArgumentParser`
 * (prefix abbreviations allowed, no `_`→`-` respelling, no `--no-x` forms), store_true switches,
 * nargs `+` / `*` / `?`, `--x=v` and `--x v`, the value types SGLang uses (int, float,
 * human_readable_int, json.loads, json_list_type, str) and choices. The last occurrence of a
 * dest wins, as in argparse. What argparse would reject is returned located, and the rest is
 * still read: an unknown or ambiguous flag, or a choice outside the table's, as a flag problem
 * (lint's FL000: the launch may run a release newer than the table, so an unknown `--x v` is kept
 * as field `x` and a choice as written); a value of the wrong type, a missing value or a stray
 * positional as a problem SGLang refuses to start with.
 */
import type { SourceLocation } from '../../../core/errors.js';
import type { ArgToken } from '../../argv-token.js';
import type { ArgValue, FlagProblem } from '../../vllm-parse-types.js';
import { pythonFloat, pythonInt, pythonJsonLoads } from '../../vllm-values.js';
import { closest } from '../../vllm-flags.js';
import { fieldOf, type SglangFlag, type SglangFlagTable } from './flag-table.js';

export interface SglangParse {
  /** ServerArgs field → value as written (after argparse's conversion). */
  args: Map<string, ArgValue>;
  /** Malformed input argparse reports (SGLang exits with status 2 on any of them). */
  problems: { message: string; at?: SourceLocation }[];
  /** Flags, ambiguous prefixes and choices the table does not have (FL000). */
  flagProblems: FlagProblem[];
  /** Abbreviated spellings resolved to their flag, deprecated flags used … */
  notes: { message: string; at?: SourceLocation }[];
}

export interface SglangOptionIndex {
  byOption: Map<string, SglangFlag>;
  longOptions: string[];
}

const indexes = new WeakMap<SglangFlagTable, SglangOptionIndex>();

export function optionIndex(table: SglangFlagTable): SglangOptionIndex {
  let idx = indexes.get(table);
  if (!idx) {
    const byOption = new Map<string, SglangFlag>();
    for (const f of table.flags) for (const o of f.options) byOption.set(o, f);
    idx = { byOption, longOptions: [...byOption.keys()].filter((o) => o.startsWith('--')) };
    indexes.set(table, idx);
  }
  return idx;
}

/** A word whose value only exists at run time: `$(VAR)` (Kubernetes), `$VAR` / `${VAR}` (shell). */
const RUNTIME_VALUE = /\$\(|\$\{|\$[A-Za-z_]/;

const NEGATIVE_NUMBER = /^-\d+$|^-\d*\.\d+$/;

/** argparse's test for an option word: starts with '-', is not a negative number, is not '-'. */
function isOptionWord(text: string): boolean {
  return text.startsWith('-') && text !== '-' && !NEGATIVE_NUMBER.test(text);
}

type Resolved = { flag: SglangFlag; option: string } | { error: string; candidates?: string[] };

/** An option word → its flag: exact, else a unique prefix of a long option (allow_abbrev). */
function resolveOption(name: string, idx: SglangOptionIndex, allowAbbrev: boolean): Resolved {
  const exact = idx.byOption.get(name);
  if (exact) return { flag: exact, option: name };
  if (allowAbbrev && name.startsWith('--')) {
    const candidates = idx.longOptions.filter((o) => o.startsWith(name));
    const flags = new Set(candidates.map((o) => idx.byOption.get(o)));
    if (flags.size === 1)
      return { flag: idx.byOption.get(candidates[0]) as SglangFlag, option: candidates[0] };
    if (candidates.length > 1)
      return {
        error: `ambiguous option: ${name} could match ${candidates.slice(0, 6).join(', ')}`,
        candidates,
      };
  }
  return { error: `unrecognized argument ${name}` };
}

/** One value word converted as the flag's `type` converts it. */
export function convertValue(flag: SglangFlag, text: string): { value: unknown } | { error: string } {
  const bad = (what: string) => ({ error: `${flag.options[0]}: invalid ${what} value: '${text}'` });
  switch (flag.type) {
    case 'int': {
      const n = pythonInt(text);
      return n === undefined ? bad('int') : { value: n };
    }
    case 'float': {
      const n = pythonFloat(text);
      return n === undefined ? bad('float') : { value: n };
    }
    case 'human_readable_int':
      return humanReadable(text) ?? bad('human_readable_int');
    case 'json.loads':
    case 'json_list_type': {
      const r = pythonJsonLoads(text);
      return 'error' in r ? bad('JSON') : { value: r.value };
    }
    case 'nullable_str':
      return { value: !text || text === 'None' ? null : text };
    default:
      return { value: text };
  }
}

const SI: Record<string, number> = { k: 1e3, M: 1e6, G: 1e9, T: 1e12 };
const IEC: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 };

/** SGLang's human_readable_int: SI (decimals allowed) and IEC suffixes, case-sensitive, else int(). */
function humanReadable(text: string): { value: number } | undefined {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)$/.exec(text.trim());
  if (m) {
    if (m[2] in IEC) return m[1].includes('.') ? undefined : { value: Number(m[1]) * IEC[m[2]] };
    return { value: Math.trunc(Number(m[1]) * SI[m[2]]) };
  }
  const n = pythonInt(text);
  return n === undefined ? undefined : { value: n };
}

/** Whether the value is outside the flag's choices (known when SGLang's table lists them). */
function outsideChoices(flag: SglangFlag, value: unknown): boolean {
  return Boolean(flag.choices && !flag.choicesOpen && !flag.choices.includes(String(value)));
}

/** The stored value of a value-less flag (store_true, store_false, store_const …). */
function switchValue(flag: SglangFlag, option: string): unknown {
  if (flag.action === 'store_false') return false;
  // argparse.BooleanOptionalAction: --x stores True, its --no-x form False.
  if (flag.action === 'BooleanOptionalAction') return !option.startsWith('--no-');
  // SGLang's deprecated aliases (DeprecatedStoreConstAction) store a constant like store_const
  if (flag.action === 'store_const' || flag.action === 'DeprecatedStoreConstAction') return flag.const;
  return true;
}

export function parseSglangArgv(tokens: readonly ArgToken[], table: SglangFlagTable): SglangParse {
  const idx = optionIndex(table);
  const out: SglangParse = { args: new Map(), problems: [], flagProblems: [], notes: [] };
  const problem = (message: string, at?: SourceLocation) =>
    out.problems.push({ message, ...(at ? { at } : {}) });
  let k = 0;
  while (k < tokens.length) {
    const tok = tokens[k];
    if (tok.text === '--' || !isOptionWord(tok.text)) {
      problem(`unrecognized argument ${tok.text}: SGLang's server takes no positional arguments`, tok.at);
      k++;
      continue;
    }
    const eq = tok.text.startsWith('--') ? tok.text.indexOf('=') : -1;
    const name = eq < 0 ? tok.text : tok.text.slice(0, eq);
    const resolved = resolveOption(name, idx, table.parser.allowAbbrev);
    k++;
    if ('error' in resolved) {
      out.flagProblems.push(
        resolved.candidates
          ? {
              kind: 'ambiguous',
              option: name,
              candidates: resolved.candidates,
              ...(tok.at ? { at: tok.at } : {}),
            }
          : { kind: 'unknown', option: name, ...(tok.at ? { at: tok.at } : {}), ...suggestion(name, idx) },
      );
      // Kept under its spelled name (a newer release than the table may know it), with its value
      // word if it has one, so the next flag is still read.
      let value: unknown = true;
      if (eq >= 0) value = tok.text.slice(eq + 1);
      else if (k < tokens.length && !isOptionWord(tokens[k].text)) value = tokens[k++].text;
      if (name.startsWith('--') && !resolved.error.startsWith('ambiguous'))
        out.args.set(name.slice(2).replace(/-/g, '_'), tok.at ? { value, at: tok.at } : { value });
      continue;
    }
    const { flag, option } = resolved;
    if (option !== name)
      out.notes.push({ message: `${name} is read as ${option} (argparse prefix match)`, at: tok.at });
    if (flag.action?.startsWith('Deprecated'))
      out.notes.push({
        message: `${option} is deprecated in this SGLang release${flag.newFlag ? `: use ${flag.newFlag}` : ''}`,
        at: tok.at,
      });
    const words: string[] = [];
    if (eq >= 0) words.push(tok.text.slice(eq + 1));
    if (flag.kind === 'flag') {
      if (eq >= 0) problem(`${option}: ignored explicit argument '${words[0]}'`, tok.at);
      else if (flag.action !== 'DeprecatedAction') setArg(out, flag, switchValue(flag, option), tok.at);
      continue;
    }
    const many = flag.nargs === '+' || flag.nargs === '*';
    if (eq < 0) {
      while (k < tokens.length && !isOptionWord(tokens[k].text) && tokens[k].text !== '--') {
        words.push(tokens[k++].text);
        if (!many) break;
      }
    }
    if (words.length === 0 && flag.nargs !== '*' && flag.nargs !== '?') {
      problem(`${option}: expected ${flag.nargs === '+' ? 'at least one argument' : 'one argument'}`, tok.at);
      continue;
    }
    const converted: unknown[] = [];
    let failed = false;
    for (const w of words) {
      if (RUNTIME_VALUE.test(w)) {
        // Known only when the container or script runs (Kubernetes $(VAR), shell $VAR): unknown, not wrong.
        out.notes.push({ message: `${option} ${w}: the value is set at run time`, at: tok.at });
        converted.push(w);
        continue;
      }
      const c = convertValue(flag, w);
      if ('error' in c) {
        problem(c.error, tok.at);
        failed = true;
        break;
      }
      if (outsideChoices(flag, c.value)) {
        const near = closest(String(c.value), flag.choices ?? []);
        out.flagProblems.push({
          kind: 'choice',
          option,
          value: String(c.value),
          ...(tok.at ? { at: tok.at } : {}),
          ...(near ? { suggestion: near } : {}),
          checkedAgainst: `the ${option} choices of SGLang ${table.sglangVersion ?? 'main'}`,
        });
      }
      converted.push(c.value);
    }
    if (failed) continue;
    const value = many ? converted : words.length ? converted[0] : (flag.const ?? null);
    setArg(out, flag, value, tok.at);
  }
  return out;
}

function suggestion(name: string, idx: SglangOptionIndex): { suggestion?: string } {
  const near = closest(name, idx.longOptions);
  return near ? { suggestion: near } : {};
}

function setArg(out: SglangParse, flag: SglangFlag, value: unknown, at: SourceLocation | undefined): void {
  out.args.set(fieldOf(flag), at ? { value, at } : { value });
}
