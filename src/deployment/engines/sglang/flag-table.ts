/**
 * SGLang's server flags as generated data: data/sglang-flags/<line>.json, one table per SGLang
 * release line (0.4.x, 0.5.x) plus `main`, each read from SGLang's own server_args.py at a named
 * commit by scripts/sglang-flags/extract_sglang_flags.py. A launch is read with the table of its
 * release line; a newer or unknown release with `main`, and the note says so.
 */
import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../../core/package-root.js';
import { compareVersions, parseVersion } from '../../versions.js';

/** How argparse consumes a flag's value: `flag` takes none (store_true/store_false/store_const). */
export type SglangFlagKind = 'flag' | 'string' | 'int' | 'float' | 'json' | 'list' | 'choice';

export interface SglangFlag {
  /** argparse dest (`tensor_parallel_size`). */
  dest: string;
  /** The ServerArgs field the dest lands in (`tp_size`); from_cli_args renames a few. */
  field?: string;
  options: string[];
  kind: SglangFlagKind;
  type?: string;
  action?: string;
  nargs?: string | number;
  choices?: string[];
  /** The choices are computed when SGLang starts (a plugin registry): any value may be valid. */
  choicesOpen?: boolean;
  default?: unknown;
  const?: unknown;
  newFlag?: string;
  help?: string;
}

export interface SglangFlagTable {
  /** The release the table was read at; null for `main`. */
  sglangVersion: string | null;
  source: {
    repository: string;
    upstream: string;
    commit: string;
    date: string;
    subject: string;
    files: string[];
  };
  generator: string;
  parser: { allowAbbrev: boolean };
  fieldDefaults: Record<string, unknown>;
  flags: SglangFlag[];
}

const DIR = join(packageRoot, 'data', 'sglang-flags');
const cache = new Map<string, SglangFlagTable>();

/** Release lines with a table, oldest first (`0.4.0` … `0.5.6`), without `main`. */
export function tableLines(): string[] {
  linesCache ??= readdirSync(DIR)
    .filter((f) => /^\d+\.\d+\.\d+\.json$/.test(f))
    .map((f) => f.slice(0, -'.json'.length))
    .sort(compareVersions);
  return [...linesCache];
}
let linesCache: string[] | undefined;

/**
 * A table's release and commit date, read from the head of its file: the generator writes
 * `sglangVersion` and `source` first. Version bounds need only these, and reading every table
 * whole would cost the start-up of every lint (tables are 25–180 KB each).
 */
export function tableStamp(line: string): { sglangVersion: string | null; date: string } {
  let stamp = stamps.get(line);
  if (!stamp) stamps.set(line, (stamp = readStamp(line)));
  return stamp;
}
const stamps = new Map<string, { sglangVersion: string | null; date: string }>();

function readStamp(line: string): { sglangVersion: string | null; date: string } {
  const cached = cache.get(line);
  const stamp = cached ? undefined : stampFromHead(line);
  if (stamp) return stamp;
  const t = cached ?? loadTable(line);
  return { sglangVersion: t.sglangVersion, date: t.source.date };
}

/** The stamp from the file's first 2 KB; undefined when the head is not as the generator writes it. */
export function stampFromHead(line: string): { sglangVersion: string | null; date: string } | undefined {
  const head = Buffer.alloc(2048);
  const fd = openSync(join(DIR, `${line}.json`), 'r');
  let n: number;
  try {
    n = readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  const text = head.toString('utf8', 0, n);
  const version = /^\{\s*"sglangVersion":\s*(null|"([^"]+)")/.exec(text);
  const date = /"source":\s*\{[^}]*?"date":\s*"([^"]+)"/.exec(text);
  return version && date ? { sglangVersion: version[2] ?? null, date: date[1] } : undefined;
}

export function loadTable(line: string): SglangFlagTable {
  let t = cache.get(line);
  if (!t)
    cache.set(line, (t = JSON.parse(readFileSync(join(DIR, `${line}.json`), 'utf8')) as SglangFlagTable));
  return t;
}

export interface ChosenTable {
  table: SglangFlagTable;
  /** Why this table, for a note ("SGLang 0.5.6.post2 flags, read at sgl-project/sglang@5c8bd8b"). */
  why: string;
  /** The table is of the launch's own release line: a flag or choice outside it, SGLang refuses. */
  authoritative: boolean;
  /** The launch's SGLang as findings name it: "SGLang 0.5.6". */
  describes: string;
}

/** The table for an SGLang version (as pip shows it), or `main` when it is unknown or newer. */
export function tableFor(version: string | undefined): ChosenTable {
  const lines = tableLines();
  const parsed = version ? parseVersion(version) : undefined;
  if (version && parsed) {
    const release = parsed.release.concat([0, 0, 0]).slice(0, 3).join('.');
    const older = lines.filter((l) => compareVersions(l, release) <= 0);
    const line = older[older.length - 1];
    if (line && compareVersions(release, lines[lines.length - 1]) <= 0) {
      const table = loadTable(line);
      const exact = line === release ? '' : ` (no table for ${release}: the nearest older release line)`;
      return {
        table,
        why: `SGLang ${version}: flags of ${table.sglangVersion}${exact} (${where(table)})`,
        authoritative: line === release && parsed.pre === undefined && parsed.dev === undefined,
        describes: `SGLang ${version}`,
      };
    }
  }
  const table = loadTable('main');
  const reason = !version
    ? 'SGLang version unknown'
    : parsed
      ? compareVersions(version, lines[0]) < 0
        ? `SGLang ${version} is older than the oldest release table (${lines[0]})`
        : `SGLang ${version} is newer than the newest release table (${lines[lines.length - 1]})`
      : `"${version}" is not a version`;
  return {
    table,
    why: `${reason}: flags of SGLang main (${where(table)})`,
    authoritative: false,
    describes: version ? `SGLang ${version}` : 'the launch’s SGLang (version unknown)',
  };
}

function where(t: SglangFlagTable): string {
  return `${t.source.upstream} server_args.py @ ${t.source.commit.slice(0, 10)}, ${t.source.date.slice(0, 10)}`;
}

/** The ServerArgs field a flag sets. */
export function fieldOf(f: SglangFlag): string {
  return f.field ?? f.dest;
}
