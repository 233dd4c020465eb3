/**
 * A LaunchChange applied to a llama-server launch's words, the way apply-change.ts does it for vLLM
 * and SGLang: keys are llama-server's option keys (the first long name, `--cache-type-k` →
 * `cache_type_k`, as Deployment.args holds them). The words are grouped as llama-server consumes
 * them (engines/llama-cpp/argparse.ts): a switch takes no value, every other option the next word,
 * whatever it looks like — except a known option, which an old build's bare `-fa` is followed by.
 *
 *   { set: { cache_type_k: 'f16' } }      -ctk q8_0 → -ctk f16 (the spelling kept), or appended
 *   { set: { swa_full: true } }           --swa-full; false: the negated name, or dropped when it has none
 *   { unset: 'spec_draft_model' }         drops -md FILE (every spelling) and its LLAMA_ARG_* variable
 *   { add: ['--spec-type', 'draft-simple'] } replaces the option's words, or appends them
 *
 * LLAMA_ARG_* variables: a flag wins over its variable, so a set appends the flag; an unset also
 * removes the variable from the server's environment.
 */
import type { Located } from '../../core/located.js';
import type { ArgToken } from '../../deployment/argv-token.js';
import type { Deployment } from '../../deployment/deployment.js';
import { llamaServerProgram } from '../../deployment/engines/llama-cpp/command.js';
import {
  loadTable,
  optionIndex,
  optionKey,
  tableFor,
  type LlamaCppFlagTable,
  type LlamaCppOption,
} from '../../deployment/engines/llama-cpp/flag-table.js';
import { list, type ArgData, type LaunchChange } from '../change.js';
import type { AppliedChange } from './apply-change.js';
import type { ArgGroup, SegmentedArgv } from './segment.js';

interface LlamaGroup extends ArgGroup {
  llama?: LlamaCppOption;
}

function tableOf(d?: Deployment): LlamaCppFlagTable {
  const tag = d?.llamaCpp?.table.tag;
  return tag ? loadTable(tag) : tableFor(undefined).table;
}

/** The words of a llama-server launch grouped by option (the program word first, when it is one). */
export function segmentLlamaArgv(tokens: readonly { text: string }[], table = tableOf()): SegmentedArgv {
  const idx = optionIndex(table);
  const start = llamaServerProgram(tokens) ? 1 : 0;
  const groups: LlamaGroup[] = [];
  let k = start;
  while (k < tokens.length) {
    const text = tokens[k].text;
    const eq = text.indexOf('=');
    const name = text.startsWith('-') && eq > 0 ? text.slice(0, eq) : text;
    const hit = idx.byName.get(name);
    if (!hit) {
      groups.push({ start: k, end: ++k });
      continue;
    }
    const o = hit.option;
    const group: LlamaGroup = { start: k, end: k + 1, option: name, dest: optionKey(o), llama: o };
    k++;
    const takesValue = o.kind !== 'switch' && eq < 0;
    if (takesValue && k < tokens.length && !idx.byName.has(tokens[k].text)) k++;
    group.end = k;
    groups.push(group);
  }
  return { programLength: start, groups };
}

function wordsFor(o: LlamaCppOption | undefined, key: string, value: ArgData, written?: string): string[] {
  const long = `--${key.replace(/_/g, '-')}`;
  const positive =
    written && o?.names.includes(written) ? written : (o?.names.find((n) => n.startsWith('--')) ?? long);
  if (o?.kind === 'switch' || typeof value === 'boolean') {
    if (value === false) {
      const neg = o?.negatives?.find((n) => n.startsWith('--')) ?? o?.negatives?.[0];
      return neg ? [neg] : [];
    }
    return [positive];
  }
  return [positive, Array.isArray(value) ? value.map(String).join(',') : String(value)];
}

export function applyLlamaChange(
  d: Deployment,
  tokens: readonly ArgToken[],
  change: LaunchChange,
): AppliedChange {
  const table = tableOf(d);
  const idx = optionIndex(table);
  const byKey = new Map<string, LlamaCppOption>();
  for (const { option } of idx.byName.values()) byKey.set(optionKey(option), option);
  const { groups } = segmentLlamaArgv(tokens, table);
  const words: (ArgToken | undefined)[] = [...tokens];
  const inserts = new Map<number, ArgToken[]>();
  const appended: ArgToken[] = [];
  let firstTouched = tokens.length;
  const env = { set: {} as Record<string, string>, unset: [] as Located<string>[] };
  const instructions: Located<string>[] = [];

  const drop = (key: string): { at?: number; option?: string } => {
    const gs = (groups as LlamaGroup[]).filter((g) => g.dest === key && words[g.start] !== undefined);
    for (const g of gs) {
      firstTouched = Math.min(firstTouched, g.start);
      for (let i = g.start; i < g.end; i++) words[i] = undefined;
    }
    const positive = gs.find((g) => g.llama?.names.includes(g.option ?? ''));
    return { at: gs[0]?.start, option: positive?.option };
  };
  const put = (ws: string[], at?: number) => {
    const toks = ws.map((text) => ({ text }));
    if (at === undefined) appended.push(...toks);
    else inserts.set(at, [...(inserts.get(at) ?? []), ...toks]);
  };
  const unsetEnv = (o: LlamaCppOption | undefined) => {
    for (const name of [o?.env, o?.envNegative]) {
      const v = name ? d.env.get(name) : undefined;
      if (name && v && !env.unset.some((u) => u.value === name))
        env.unset.push({ value: name, ...(v.at ? { at: v.at } : {}) });
    }
  };

  for (const [key, value] of Object.entries(change.set ?? {})) {
    const o = byKey.get(key);
    const { at, option } = drop(key);
    put(wordsFor(o, key, value, option), at);
  }
  for (const key of list(change.unset)) {
    drop(key);
    unsetEnv(byKey.get(key));
  }
  if (change.add !== undefined) {
    const added = list(change.add);
    for (const g of segmentLlamaArgv(
      added.map((text) => ({ text })),
      table,
    ).groups) {
      const { at } = g.dest ? drop(g.dest) : { at: undefined };
      put(added.slice(g.start, g.end), at);
    }
  }
  for (const [name, value] of Object.entries(change.env ?? {})) {
    if (value !== null) env.set[name] = value;
    else if (d.env.has(name))
      env.unset.push({ value: name, ...(d.env.get(name)?.at ? { at: d.env.get(name)?.at } : {}) });
  }
  if (change.versions) instructions.push({ value: 'run a llama.cpp build with the fix' });
  if (change.model) instructions.push({ value: `serve the model ${change.model}` });

  const out: ArgToken[] = [];
  words.forEach((w, i) => {
    out.push(...(inserts.get(i) ?? []));
    if (w) out.push(w);
  });
  return { tokens: [...out, ...appended], env, instructions, firstTouched };
}
