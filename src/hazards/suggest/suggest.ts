/**
 * `lint --suggest`: for every finding, the launch with each of its remedies applied, written in the
 * form of the file it came from, with the region it replaces:
 * - a shell script (or a YAML literal block holding one) → the command as a shell line, one option
 *   per line when the original was written that way, replacing the command's words;
 * - a YAML block list (Kubernetes / KServe args, a Compose command, production-stack extraArgs) →
 *   the list items, replacing the items from the first one the change touches to the end;
 * - anything else (a command given after `--`, a script inside a quoted YAML string, a vLLM --config
 *   file) → the command as a shell line, located at the launch, without a region.
 * What the argv cannot carry (environment, releases, checkpoints, values in a --config file) comes
 * with each suggestion as located instructions.
 */
import type { SourceLocation } from '../../core/errors.js';
import type { Located } from '../../core/located.js';
import type { ArgToken } from '../../deployment/argv-token.js';
import type { Deployment } from '../../deployment/deployment.js';
import { ollamaVariable } from '../../deployment/engines/ollama/env-table.js';
import { changeText } from '../change.js';
import type { Finding } from '../finding.js';
import type { HazardId, Remedy } from '../hazard.js';
import { applyChange, type AppliedChange } from './apply-change.js';
import { renderShell, renderYamlList } from './render.js';
import {
  blockScalarStyle,
  indentOf,
  shellSpan,
  shellWordEnd,
  shellWordStart,
  yamlListSpan,
  type Span,
} from './source-span.js';

export type SuggestionForm = 'shell' | 'yaml-list' | 'argv';

export interface Suggestion {
  hazardId: HazardId;
  remedyId: string;
  /** The remedy in words. */
  change: string;
  /** Whether the finding it fixes was definite or only "possibly affected". */
  possibly: boolean;
  form: SuggestionForm;
  /** Where the launch (or the replaced list items) starts. */
  location: SourceLocation;
  /** The region of `location.file` that `text` replaces; absent when it cannot be placed exactly. */
  replaces?: Span;
  /** The launch with the remedy applied, in `form`. */
  text: string;
  /** Environment variables to set, and to remove (located where they are set now). */
  env: { set: Record<string, string>; unset: Located<string>[] };
  /** What else the remedy needs, in words (a release, a checkpoint, a --config file edit). */
  instructions: Located<string>[];
}

/** Reads a launch file's text by the path locations use; undefined when it cannot be read. */
export type ReadText = (file: string) => string | undefined;

const YAML_KINDS = new Set(['kubernetes', 'kserve', 'compose', 'helm-production-stack']);

/** The longest run of words at the end of the argv that are YAML list items: one per line, same column. */
function yamlRunStart(tokens: readonly ArgToken[]): number | undefined {
  let k = tokens.length - 1;
  const last = tokens[k]?.at;
  if (!last) return undefined;
  while (k > 0) {
    const prev = tokens[k - 1].at;
    const cur = tokens[k].at;
    if (!prev || !cur || prev.file !== cur.file || prev.column !== cur.column || prev.line >= cur.line) break;
    k--;
  }
  return k;
}

interface Placed {
  form: SuggestionForm;
  location: SourceLocation;
  replaces?: Span;
  text: string;
}

function place(d: Deployment, argv: readonly ArgToken[], applied: AppliedChange, readText: ReadText): Placed {
  const first = argv[0]?.at ?? d.at ?? { file: d.source.file, line: 1, column: 1 };
  const last = argv[argv.length - 1]?.at;
  const sameFile = argv.every((t) => t.at?.file === first.file);
  const text = sameFile && last ? readText(first.file) : undefined;
  const written = text ? writtenWords(text, argv) : undefined;
  const shellText = (indent = 0, keepWritten = false) =>
    renderShell(applied.tokens, {
      env: applied.env.set,
      ...(keepWritten && written ? { written } : {}),
    }).replace(/\n {2}/g, `\n${' '.repeat(indent + 2)}`);
  const fallback: Placed = { form: 'argv', location: first, text: shellText() };
  if (!text || !last) return fallback;
  if (YAML_KINDS.has(d.source.kind)) {
    const r0 = yamlRunStart(argv);
    if (r0 !== undefined && r0 <= applied.firstTouched && argv.length - r0 > 1) {
      const startAt = argv[r0].at as SourceLocation;
      const span = yamlListSpan(text, startAt, last);
      if (span)
        return {
          form: 'yaml-list',
          location: { file: first.file, ...span.start },
          replaces: { start: span.start, end: span.end },
          text: renderYamlList(
            applied.tokens.slice(r0).map((t) => t.text),
            span.indent,
          ),
        };
    }
  }
  // a command in a YAML block scalar (a llama-swap `cmd: |`, a `sh -c` block) is shell text; systemd's
  // ExecStart= splits words and continues lines as the shell does
  const block =
    YAML_KINDS.has(d.source.kind) || d.source.kind === 'llama-swap'
      ? blockScalarStyle(text, first)
      : undefined;
  if (!block && d.source.kind !== 'shell' && d.source.kind !== 'systemd') return fallback; // a --config file, guard's argv
  const span = shellSpan(text, first, last);
  if (!span) return fallback;
  const indent = indentOf(text.split('\n')[first.line - 1] ?? '');
  const shell = shellText(indent, true);
  // a folded block reads its line breaks as spaces: the words go on lines without continuations, at the
  // block's own indentation (a more-indented line would keep its line break)
  const folded = block === '>' ? shell.replace(/ \\\n */g, `\n${' '.repeat(indent)}`) : undefined;
  return { form: 'shell', location: first, replaces: span, text: folded ?? shell };
}

/**
 * Words the change left as they were, written back as the file writes them: a variable stays `$MODEL`
 * (not the value lint resolved it to), and the words an image stands for (its entrypoint) are the
 * image once. A word the change wrote or moved has no such text and is quoted from its value.
 */
function writtenWords(
  text: string,
  argv: readonly ArgToken[],
): (t: ArgToken, i: number) => string | undefined {
  const lines = text.split('\n');
  const key = (at: SourceLocation) => `${at.line}:${at.column}`;
  const original = new Map(argv.flatMap((t) => (t.at ? [[key(t.at), t.text] as const] : [])));
  const seen = new Set<string>();
  return (t) => {
    if (!t.at || original.get(key(t.at)) !== t.text) return undefined;
    if (seen.has(key(t.at))) return '';
    seen.add(key(t.at));
    const start = shellWordStart(lines, t.at);
    const end = shellWordEnd(lines, start);
    if (!end || end.line !== start.line) return undefined;
    return lines[start.line - 1].slice(start.column - 1, end.column - 1);
  };
}

function suggestion(f: Finding, r: Remedy, readText: ReadText): Suggestion {
  const d = f.deployment;
  const argv = d.argv ?? [];
  const applied = applyChange(d, argv, r.change);
  const placed = place(d, argv, applied, readText);
  const instructions = [...applied.instructions];
  // A shell line carries new variables as `VAR=value` prefixes; a YAML list cannot.
  if (placed.form === 'yaml-list')
    for (const [k, v] of Object.entries(applied.env.set))
      instructions.push({ value: `set ${k}=${v} in the container's environment`, at: placed.location });
  for (const u of applied.env.unset) {
    instructions.push({ value: unsetInstruction(readText, u), ...(u.at ? { at: u.at } : {}) });
  }
  return {
    hazardId: f.hazard.id,
    remedyId: r.id,
    change: changeText(r),
    possibly: f.possibly,
    ...placed,
    env: applied.env,
    instructions,
  };
}

/**
 * The key a file writes where it sets an environment variable under another name (a chart's
 * `kvCacheType: q8_0` becomes OLLAMA_KV_CACHE_TYPE): the instruction names what the reader sees.
 */
function settingWrittenAs(readText: ReadText, at: SourceLocation, variable: string): string | undefined {
  const line = readText(at.file)?.split('\n')[at.line - 1];
  if (line === undefined || line.includes(variable)) return undefined;
  return /^\s*(?:-\s+)?([\w.-]+)\s*:/.exec(line)?.[1];
}

/**
 * Where the file sets the variable under a key of its own, removing the key may not unset it (a chart's
 * template falls back to a default of its own): the key is set to the server's default instead.
 */
function unsetInstruction(readText: ReadText, u: Located<string>): string {
  const key = u.at && settingWrittenAs(readText, u.at, u.value);
  if (!key) return `remove ${u.value} from the server's environment`;
  const serverDefault = ollamaVariable(u.value)?.default;
  return serverDefault !== undefined
    ? `set ${key} to ${serverDefault}, the server's own default (the file sets ${u.value} from ${key})`
    : `remove ${key} (the file sets ${u.value} in the server's environment from it)`;
}

/** One suggestion per finding and remedy, in the findings' order. */
export function suggestFixes(findings: readonly Finding[], readText: ReadText): Suggestion[] {
  return findings.flatMap((f) =>
    // The argv editing knows vLLM's, SGLang's and llama-server's options (llama-argv.ts); an Ollama
    // server's settings are its environment, which a shell line carries as VAR=value prefixes.
    f.deployment.argv?.length ? f.hazard.remedies.map((r) => suggestion(f, r, readText)) : [],
  );
}
