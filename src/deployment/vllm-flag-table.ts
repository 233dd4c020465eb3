/**
 * The generated vLLM flag tables (data/vllm-flags/<minor>.json, written by
 * scripts/vllm-flags/extract_vllm_flags.py from vLLM's own source at a release tag) as FlagSpecs,
 * and the choice of table for a launch:
 *   - a release version (0.23.1) → its minor's table, authoritative: a flag not in it is one
 *     vLLM would refuse;
 *   - a pre-release or nightly (0.24.0rc1, 0.23.1rc1.dev843+g…) → the table of that minor, not
 *     authoritative (main moves between releases);
 *   - no version → the newest table, plus every flag of an older table (an old flag is not
 *     unknown while the release is), not authoritative;
 *   - a version outside the tables → the nearest table, with a note, not authoritative.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../core/package-root.js';
import { parseVersion, type Version } from './versions.js';
import {
  ATTENTION_BACKENDS,
  LEGACY_FLAGS,
  PARSER_FLAGS,
  buildFlagIndex,
  destOf,
  type FlagIndex,
  type FlagKind,
  type FlagSpec,
} from './vllm-flags.js';

/** One flag as the generator writes it. */
export interface GeneratedFlag {
  dest: string;
  options: string[];
  positional?: boolean;
  kind: string;
  choices?: string[];
  choicesOpen?: boolean;
  acceptsNone?: boolean;
  nargs?: string | number;
  append?: boolean;
  action?: string;
  orString?: boolean;
  humanReadableInt?: boolean;
  acceptsAuto?: boolean;
  enum?: string;
  deprecated?: boolean;
  deprecatedInHelp?: boolean;
  default?: unknown;
  help?: string;
}

export interface GeneratedTable {
  vllmVersion: string;
  source: { repository: string; ref: string; commit: string; date: string; files: string[] };
  flags: GeneratedFlag[];
}

export interface FlagTable {
  /** The release the table was generated from, e.g. "0.27.1". */
  release: string;
  commit: string;
  specs: FlagSpec[];
}

export interface TableChoice {
  table: FlagTable;
  index: FlagIndex;
  /** A flag outside the table is one this vLLM would refuse (the version is a release the table is of). */
  authoritative: boolean;
  /** What the launch's version is, as said in findings: "vLLM 0.27.1". */
  describes: string;
  /** Said once per launch when the table is not the launch's own release. */
  note?: string;
}

const DATA_DIR = join(packageRoot, 'data', 'vllm-flags');
const SECRET_DESTS = new Set(['api_key', 'hf_token', 'ssl_keyfile_password']);

let minorsCache: { minor: number; file: string }[] | undefined;
const rawCache = new Map<number, GeneratedTable>();
const tableCache = new Map<number, FlagTable>();
const choiceCache = new Map<string, TableChoice>();

/** The minors that have a table, ascending (0.8 → 8). */
export function tableMinors(): number[] {
  return minorFiles().map((m) => m.minor);
}

function minorFiles(): { minor: number; file: string }[] {
  minorsCache ??= readdirSync(DATA_DIR)
    .flatMap((f) => {
      const m = /^0\.(\d+)\.json$/.exec(f);
      return m ? [{ minor: Number(m[1]), file: join(DATA_DIR, f) }] : [];
    })
    .sort((a, b) => a.minor - b.minor);
  return minorsCache;
}

/** A table as the generator wrote it, read once. */
function rawTable(minor: number): GeneratedTable {
  const cached = rawCache.get(minor);
  if (cached) return cached;
  const entry = minorFiles().find((m) => m.minor === minor);
  if (!entry) throw new Error(`no vLLM flag table for 0.${minor}`);
  const raw = JSON.parse(readFileSync(entry.file, 'utf8')) as GeneratedTable;
  rawCache.set(minor, raw);
  return raw;
}

export function loadFlagTable(minor: number): FlagTable {
  const cached = tableCache.get(minor);
  if (cached) return cached;
  const raw = rawTable(minor);
  const table: FlagTable = {
    release: raw.vllmVersion,
    commit: raw.source.commit,
    specs: raw.flags.flatMap((f) => {
      const spec = specOf(f, raw.vllmVersion);
      return spec ? [spec] : [];
    }),
  };
  tableCache.set(minor, table);
  return table;
}

/** A generated flag → the argv emulation's FlagSpec (positionals are the parser's business, not flags). */
export function specOf(f: GeneratedFlag, release: string): FlagSpec | undefined {
  if (f.positional || f.options.length === 0) return undefined;
  const long = f.options.find((o) => o.startsWith('--')) ?? f.options[0];
  const dest = destOf(long);
  const spec: FlagSpec = { dest, kind: kindOf(f) };
  const aliases = f.options.filter((o) => o !== long);
  if (aliases.length) spec.aliases = aliases;
  if (f.action === 'store_true' || f.action === 'store_false') spec.noNegation = true;
  if (f.append) spec.append = true;
  if (f.orString) spec.orString = true;
  if (f.humanReadableInt) spec.humanReadableInt = true;
  if (f.acceptsAuto) spec.acceptsAuto = true;
  if (spec.kind === 'choice') {
    spec.choices = [...(f.choices ?? []), ...(f.acceptsNone ? ['None'] : [])];
    if (f.choicesOpen) spec.choicePolicy = 'open';
  }
  if (dest === 'attention_backend' && spec.kind === 'string') {
    // An enum-typed field: argparse takes any string and vLLM's validator checks the enum name.
    spec.kind = 'choice';
    spec.choices = ATTENTION_BACKENDS;
    spec.caseInsensitive = true;
    spec.choicePolicy = 'open';
  }
  if (f.deprecated) spec.note = `deprecated in vLLM ${release} (vLLM warns when it is used)`;
  if (SECRET_DESTS.has(dest)) spec.secret = true;
  if (f.help) spec.help = f.help;
  return spec;
}

function kindOf(f: GeneratedFlag): FlagKind {
  if (f.nargs === '?' || f.kind === 'optional-value' || f.kind === 'bool-value') return 'optional';
  switch (f.kind) {
    case 'bool':
    case 'count':
      return 'bool';
    case 'int':
    case 'float':
    case 'json':
    case 'list':
      return f.kind;
    case 'choice':
      return f.nargs === '+' || f.nargs === '*' ? 'list' : 'choice';
    default:
      return 'string';
  }
}

/** The table (and its index, built once) for a launch's vLLM version; see the file comment. */
export function chooseFlagTable(version: string | undefined, extraFlags: readonly FlagSpec[] = []): TableChoice {
  const key = version ?? '';
  const cached = extraFlags.length === 0 ? choiceCache.get(key) : undefined;
  if (cached) return cached;
  const choice = pick(version, extraFlags);
  if (extraFlags.length === 0) choiceCache.set(key, choice);
  return choice;
}

function pick(version: string | undefined, extraFlags: readonly FlagSpec[]): TableChoice {
  const minors = tableMinors();
  const newest = loadFlagTable(minors[minors.length - 1]);
  const parsed = version ? parseVersion(version) : undefined;
  if (!parsed || parsed.release[0] !== 0) {
    const specs = unionWithOlder(newest, minors);
    return {
      table: newest,
      index: buildFlagIndex(specs, strictChoices(extraFlags)),
      authoritative: false,
      describes: version ? `vLLM ${version}` : 'the launch’s vLLM (version unknown)',
      note: version
        ? `vLLM version ${version} is not one faultline has a flag table for; flags checked against vLLM ${newest.release} and older releases`
        : undefined,
    };
  }
  const minor = parsed.release[1] ?? 0;
  const nearest = minors.includes(minor) ? minor : minor > minors[minors.length - 1] ? minors[minors.length - 1] : minors[0];
  const table = loadFlagTable(nearest);
  const release = isRelease(parsed);
  const authoritative = nearest === minor && release;
  const specs = withLegacy(table.specs, parsed);
  let note: string | undefined;
  if (nearest !== minor)
    note = `vLLM ${version} is outside faultline's flag tables (0.${minors[0]}–0.${minors[minors.length - 1]}); flags checked against vLLM ${table.release}`;
  else if (!release)
    note = `vLLM ${version} is a pre-release or nightly build: flags checked against the ${table.release} release, which may differ`;
  return { table, index: buildFlagIndex(specs, strictChoices(extraFlags)), authoritative, describes: `vLLM ${version}`, note };
}

/** The caller's own flags (the engine's) are not vLLM's: a value outside their choices is always an error. */
function strictChoices(flags: readonly FlagSpec[]): FlagSpec[] {
  return flags.map((s) => (s.kind === 'choice' && !s.choicePolicy ? { ...s, choicePolicy: 'strict' as const } : s));
}

/** A final or post release; a local segment (`+cu128`) is a build of the same release. */
function isRelease(v: Version): boolean {
  return v.pre === undefined && v.dev === undefined;
}

/** The newest table plus every flag that only an older release has (version unknown). */
function unionWithOlder(newest: FlagTable, minors: number[]): FlagSpec[] {
  const specs = [...newest.specs.map((s) => ({ ...s })), ...PARSER_FLAGS];
  const byDest = new Map(specs.map((s) => [s.dest, s]));
  // The older tables are read raw: only a flag the union lacks, or a choice flag, becomes a spec
  // (converting every flag of every release would cost more than the rest of a lint's start-up).
  for (const minor of [...minors].reverse()) {
    const raw = rawTable(minor);
    for (const f of raw.flags) {
      if (f.positional || f.options.length === 0) continue;
      const known = byDest.get(destOf(f.options.find((o) => o.startsWith('--')) ?? f.options[0]));
      if (known && !(known.kind === 'choice' && (f.kind === 'choice' || f.choices))) continue;
      const s = specOf(f, raw.vllmVersion);
      if (!s) continue;
      if (!known) {
        const older = { ...s, note: `not a flag of vLLM ${newest.release}; the last release faultline has it in is ${raw.vllmVersion}` };
        byDest.set(s.dest, older);
        specs.push(older);
      } else if (s.kind === 'choice' && s.choices) {
        // A value some release accepts is not unknown while the release is.
        known.choices = [...new Set([...(known.choices ?? []), ...s.choices])];
      }
    }
  }
  for (const s of LEGACY_FLAGS) if (!byDest.has(s.dest)) specs.push(s);
  return specs;
}

function withLegacy(specs: FlagSpec[], v: Version): FlagSpec[] {
  const out = [...specs, ...PARSER_FLAGS];
  const seen = new Set(out.map((s) => s.dest));
  for (const s of LEGACY_FLAGS) {
    const until = s.legacyUntil && parseVersion(s.legacyUntil);
    if (until && !seen.has(s.dest) && compareRelease(v, until) <= 0) out.push(s);
  }
  return out;
}

function compareRelease(a: Version, b: Version): number {
  for (let k = 0; k < Math.max(a.release.length, b.release.length); k++) {
    const d = (a.release[k] ?? 0) - (b.release[k] ?? 0);
    if (d) return d;
  }
  return 0;
}

/** Which releases (by their tables) register an option string: for "removed after 0.16" hints. */
export function releasesWithOption(option: string): string[] {
  const out: string[] = [];
  for (const minor of tableMinors()) {
    const t = loadFlagTable(minor);
    if (t.specs.some((s) => `--${s.dest.replace(/_/g, '-')}` === option || (s.aliases ?? []).includes(option) || (s.kind === 'bool' && !s.noNegation && `--no-${s.dest.replace(/_/g, '-')}` === option)))
      out.push(t.release);
  }
  return out;
}
