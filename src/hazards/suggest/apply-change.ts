/**
 * A LaunchChange applied to a launch's argv: the words of each changed dest are replaced in place
 * (keeping the option's spelling), dropped, or appended at the end. A JSON flag's sub-key is changed
 * in the flag's final value as vLLM resolved it (the Deployment's merged object), which is then
 * written back as one JSON word — so dotted sub-keys and `--config` YAML values are not lost.
 * What the argv cannot express (a value set in a `--config` file that must go, the environment, a
 * release, a checkpoint) comes back as located instructions.
 */
import type { Located } from '../../core/located.js';
import type { ArgToken } from '../../deployment/argv-token.js';
import type { Deployment } from '../../deployment/deployment.js';
import { longOptionOf, type FlagSpec } from '../../deployment/vllm-flags.js';

import { describeChange, list, type ArgData, type LaunchChange } from '../change.js';
import { flagIndexForArgv, programWordsOf } from './engine-flags.js';
import { applyLlamaChange } from './llama-argv.js';
import { segmentArgv, type ArgGroup } from './segment.js';

export interface AppliedChange {
  /** The launch's argv with the change applied; new words carry no location. */
  tokens: ArgToken[];
  /** Environment variables to set, and names to remove (with where they are set now). */
  env: { set: Record<string, string>; unset: Located<string>[] };
  /** Parts of the change the argv cannot carry, said in words at the place to edit. */
  instructions: Located<string>[];
  /** The first index of the original argv the change dropped or inserted before (its length: only appended). */
  firstTouched: number;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** JSON the way Python's json.dumps writes it (`{"a": 1, "b": true}`), the form vLLM docs use. */
export function pythonStyleJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(pythonStyleJson).join(', ')}]`;
  if (isObj(v))
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}: ${pythonStyleJson(x)}`)
      .join(', ')}}`;
  return JSON.stringify(v);
}

/** Deep copy of `obj` with `path` set to `value` (undefined deletes; an emptied object is deleted too). */
function withPath(obj: unknown, path: string[], value: unknown): Obj | undefined {
  const copy: Obj = isObj(obj) ? { ...obj } : {};
  const [head, ...rest] = path;
  const next = rest.length ? withPath(copy[head], rest, value) : value;
  if (next === undefined) delete copy[head];
  else copy[head] = next;
  return Object.keys(copy).length ? copy : undefined;
}

/** The argv words that give `dest` the value `value`. */
function wordsFor(spec: FlagSpec | undefined, dest: string, value: unknown, option?: string, optionSpec?: FlagSpec): string[] {
  // The written spelling is kept unless it is a switch and the new value is not a boolean (SGLang's
  // --enable-breakable-cuda-graph stores a constant into cuda_graph_backend_prefill).
  const switchForValue = optionSpec?.kind === 'bool' && typeof value !== 'boolean';
  const long = option && !option.startsWith('--no-') && !switchForValue ? option : longOptionOf(dest);
  if (spec?.kind === 'bool' || typeof value === 'boolean')
    return [value === false ? `--no-${longOptionOf(dest).slice(2)}` : long];
  if (Array.isArray(value) && spec?.kind === 'list') return [long, ...value.map(String)];
  if (typeof value === 'object') return [long, pythonStyleJson(value)];
  return [long, String(value)];
}

class ArgvEditor {
  private words: (ArgToken | undefined)[];
  private readonly inserts = new Map<number, ArgToken[]>();
  private readonly appended: ArgToken[] = [];
  private readonly groups: ArgGroup[];
  private readonly index;

  constructor(tokens: readonly ArgToken[]) {
    this.index = flagIndexForArgv(tokens);
    this.words = [...tokens];
    this.groups = segmentArgv(tokens).groups;
    this.firstTouched = tokens.length;
  }

  groupsOf(dest: string): ArgGroup[] {
    return this.groups.filter((g) => g.dest === dest && this.words[g.start] !== undefined);
  }

  spec(dest: string): FlagSpec | undefined {
    return this.index.lookup(longOptionOf(dest))?.spec;
  }

  optionSpec(option: string | undefined): FlagSpec | undefined {
    return option === undefined ? undefined : this.index.lookup(option)?.spec;
  }

  /** The first original index changed so far (the argv's length when words were only appended). */
  firstTouched: number;

  /** Drops every group of `dest`; returns where the first one was, for a replacement. */
  drop(dest: string): { at?: number; option?: string } {
    const gs = this.groupsOf(dest);
    for (const g of gs) {
      this.firstTouched = Math.min(this.firstTouched, g.start);
      for (let k = g.start; k < g.end; k++) this.words[k] = undefined;
    }
    const plain = gs.find((g) => g.path === undefined);
    return { at: gs[0]?.start, option: plain?.option };
  }

  put(words: string[], at?: number): void {
    const toks = words.map((text) => ({ text }));
    if (at === undefined) this.appended.push(...toks);
    else this.inserts.set(at, [...(this.inserts.get(at) ?? []), ...toks]);
  }

  result(): ArgToken[] {
    const out: ArgToken[] = [];
    this.words.forEach((w, k) => {
      out.push(...(this.inserts.get(k) ?? []));
      if (w) out.push(w);
    });
    return [...out, ...this.appended];
  }
}

export function applyChange(d: Deployment, tokens: readonly ArgToken[], change: LaunchChange): AppliedChange {
  // llama-server's words are grouped by its own option table (llama-argv.ts)
  if (d.engine === 'llama.cpp') return applyLlamaChange(d, tokens, change);
  const editor = new ArgvEditor(tokens);
  const instructions: Located<string>[] = [];
  const values = new Map<string, unknown>();
  // An SGLang launch's args hold SGLang's rewrites; the words to edit are the ones written.
  const written = d.sglang?.written ?? d.args;
  for (const [dest, v] of written) values.set(dest, v.value);

  const assign = (key: string, value: unknown) => {
    const [dest, ...path] = key.split('.');
    const next = path.length ? withPath(values.get(dest), path, value) : value;
    const fromArgv = editor.groupsOf(dest).length > 0;
    const { at, option } = editor.drop(dest);
    values.set(dest, next);
    if (next !== undefined) editor.put(wordsFor(editor.spec(dest), dest, next, option, editor.optionSpec(option)), at);
    else if (!fromArgv && written.has(dest)) {
      const where = written.get(dest)?.at;
      instructions.push({
        value: `remove ${dest.replace(/_/g, '-')} from ${where?.file ?? 'the --config file'}`,
        ...(where ? { at: where } : {}),
      });
    }
  };

  for (const [key, value] of Object.entries(change.set ?? {})) assign(key, value as ArgData);
  for (const key of list(change.unset)) assign(key, undefined);
  if (change.add !== undefined) {
    const words = list(change.add);
    const program = programWordsOf(tokens);
    const added = segmentArgv([...program, ...words.map((text) => ({ text }))]).groups;
    for (const g of added) {
      const groupWords = words.slice(g.start - program.length, g.end - program.length);
      const { at } = g.dest ? editor.drop(g.dest) : { at: undefined };
      editor.put(groupWords, at);
    }
  }

  const env = { set: {} as Record<string, string>, unset: [] as Located<string>[] };
  for (const [name, value] of Object.entries(change.env ?? {})) {
    if (value !== null) env.set[name] = value;
    else if (d.env.has(name))
      env.unset.push({ value: name, ...(d.env.get(name)?.at ? { at: d.env.get(name)?.at } : {}) });
  }
  if (change.versions) instructions.push({ value: `run ${describeChange({ versions: change.versions })}` });
  if (change.model) instructions.push({ value: describeChange({ model: change.model }) });
  return { tokens: editor.result(), env, instructions, firstTouched: editor.firstTouched };
}
