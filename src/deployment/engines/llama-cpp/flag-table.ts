/**
 * llama-server's options as generated data: data/llama-cpp-flags/<tag>.json, read from llama.cpp's
 * own common/arg.cpp by scripts/llama-cpp-flags/ (its README says what each field means). The
 * tables are named by llama.cpp release tag; files in the wild name builds (`server-cuda-b6123`),
 * which faultline cannot place against a tag, so only a launch of a table's own tag (given with
 * --llama-cpp-version) is checked authoritatively: anything else is checked against the newest
 * table and what that table lacks is only "possibly" refused (lint's FL000).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../../core/package-root.js';

export type LlamaOptionKind = 'switch' | 'int' | 'float' | 'string';

export interface LlamaCppOption {
  names: string[];
  negatives?: string[];
  value: string | null;
  value2?: string;
  kind: LlamaOptionKind;
  /** The handler's signature: `void`, `bool`, `int`, `string`, `string,string`. */
  handler: string;
  choices?: string[];
  choicesFrom?: 'value' | 'help';
  /** The literal words the handler compares the value with (is_truthy/is_falsey/is_autoy expanded). */
  accepts?: string[];
  default?: string;
  env: string | null;
  envNegative?: string;
  examples: string[];
  excludes?: string[];
  server: boolean;
  condition?: string;
  removed?: boolean;
  deprecated?: boolean;
  sampling?: boolean;
  spec?: boolean;
  help: string;
}

export interface LlamaCppFlagTable {
  llamaCppTag: string;
  source: {
    repository: string;
    tag: string;
    commit: string;
    date: string;
    subject: string;
    files: string[];
    snapshot?: string;
  };
  generator: string;
  counts: Record<string, number>;
  exampleDefaults: Record<string, Record<string, unknown>>;
  options: LlamaCppOption[];
  presetOptions: LlamaCppOption[];
}

const DIR = join(packageRoot, 'data', 'llama-cpp-flags');
const cache = new Map<string, LlamaCppFlagTable>();

/** Release tags with a table (`v0.4.0` …), oldest first. */
export function tableTags(): string[] {
  return readdirSync(DIR)
    .filter((f) => /^v\d+\.\d+\.\d+\.json$/.test(f))
    .map((f) => f.slice(0, -'.json'.length))
    .sort((a, b) => compareTags(a, b));
}

function compareTags(a: string, b: string): number {
  const pa = a.slice(1).split('.').map(Number);
  const pb = b.slice(1).split('.').map(Number);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i] - pb[i];
  return 0;
}

export function loadTable(tag: string): LlamaCppFlagTable {
  let t = cache.get(tag);
  if (!t)
    cache.set(tag, (t = JSON.parse(readFileSync(join(DIR, `${tag}.json`), 'utf8')) as LlamaCppFlagTable));
  return t;
}

/** A llama.cpp version as files and users write it: a build (`b6123`, `6123`) or a release tag (`v0.4.0`). */
export type LlamaCppVersion = { build: number } | { tag: string };

export function parseLlamaCppVersion(text: string): LlamaCppVersion | undefined {
  const t = text.trim();
  const build = /^b?(\d{3,6})$/.exec(t);
  if (build) return { build: Number(build[1]) };
  const tag = /^v?(\d+\.\d+\.\d+)$/.exec(t);
  if (tag) return { tag: `v${tag[1]}` };
  return undefined;
}

/** The version as Deployment.versions.llamaCpp holds it: `b6123` or `v0.4.0`. */
export function versionText(v: LlamaCppVersion): string {
  return 'build' in v ? `b${v.build}` : v.tag;
}

export interface ChosenLlamaTable {
  table: LlamaCppFlagTable;
  /** Why this table, for a note. */
  why: string;
  /** The table is of the launch's own release: what it lacks, llama-server refuses. */
  authoritative: boolean;
  /** The launch's llama.cpp as findings name it. */
  describes: string;
}

export function tableFor(version: LlamaCppVersion | undefined): ChosenLlamaTable {
  const tags = tableTags();
  const newest = tags[tags.length - 1];
  if (version && 'tag' in version && tags.includes(version.tag)) {
    const table = loadTable(version.tag);
    return {
      table,
      why: `llama.cpp ${version.tag}: its own flag table (${where(table)})`,
      authoritative: true,
      describes: `llama.cpp ${version.tag}`,
    };
  }
  const table = loadTable(newest);
  const reason = !version
    ? 'llama.cpp version unknown'
    : 'build' in version
      ? `llama.cpp build b${version.build}: faultline's tables are named by release tag and cannot be placed against build numbers`
      : `llama.cpp ${version.tag} has no table of its own`;
  return {
    table,
    why: `${reason}; flags checked against llama.cpp ${newest} (${where(table)}), and what it lacks may be a flag of the build that runs`,
    authoritative: false,
    describes: version ? `llama.cpp ${versionText(version)}` : 'the launch’s llama.cpp (version unknown)',
  };
}

function where(t: LlamaCppFlagTable): string {
  return `${t.source.repository} common/arg.cpp @ ${t.source.commit.slice(0, 10)}, ${t.source.date.slice(0, 10)}`;
}

/** The key an option's value is kept under in Deployment.args: its first long name, `--ctx-size` → `ctx_size`. */
export function optionKey(o: LlamaCppOption): string {
  const long = o.names.find((n) => n.startsWith('--')) ?? o.names[0];
  return nameKey(long);
}

export function nameKey(name: string): string {
  return name.replace(/^-+/, '').replace(/-/g, '_');
}

export interface LlamaOptionIndex {
  /** Every spelling llama-server takes (names and negated names) → the option, and whether the spelling is positive. */
  byName: Map<string, { option: LlamaCppOption; positive: boolean }>;
  /** Environment variable → the option it sets, and whether it is the `LLAMA_ARG_NO_*` twin. */
  byEnv: Map<string, { option: LlamaCppOption; negative: boolean }>;
  /** Spellings of options other tools take but llama-server does not (`--prompt`). */
  otherTools: Set<string>;
}

const indexes = new WeakMap<LlamaCppFlagTable, LlamaOptionIndex>();

export function optionIndex(table: LlamaCppFlagTable): LlamaOptionIndex {
  let idx = indexes.get(table);
  if (idx) return idx;
  const byName = new Map<string, { option: LlamaCppOption; positive: boolean }>();
  const byEnv = new Map<string, { option: LlamaCppOption; negative: boolean }>();
  const otherTools = new Set<string>();
  for (const o of table.options) {
    if (!o.server) {
      for (const n of [...o.names, ...(o.negatives ?? [])]) otherTools.add(n);
      continue;
    }
    for (const n of o.names) byName.set(n, { option: o, positive: true });
    for (const n of o.negatives ?? []) byName.set(n, { option: o, positive: false });
    if (o.env) byEnv.set(o.env, { option: o, negative: false });
    if (o.envNegative) byEnv.set(o.envNegative, { option: o, negative: true });
  }
  for (const n of byName.keys()) otherTools.delete(n);
  idx = { byName, byEnv, otherTools };
  indexes.set(table, idx);
  return idx;
}
