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
import { changeText } from '../change.js';
import type { Finding } from '../finding.js';
import type { HazardId, Remedy } from '../hazard.js';
import { applyChange, type AppliedChange } from './apply-change.js';
import { renderShell, renderYamlList } from './render.js';
import { indentOf, inLiteralBlock, shellSpan, yamlListSpan, type Span } from './source-span.js';

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
  const shellText = (indent = 0) =>
    renderShell(applied.tokens, { env: applied.env.set }).replace(/\n {2}/g, `\n${' '.repeat(indent + 2)}`);
  const fallback: Placed = { form: 'argv', location: first, text: shellText() };
  const last = argv[argv.length - 1]?.at;
  const sameFile = argv.every((t) => t.at?.file === first.file);
  const text = sameFile && last ? readText(first.file) : undefined;
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
    if (!inLiteralBlock(text, first)) return fallback;
  } else if (d.source.kind !== 'shell') return fallback; // a --config file, guard's argv: no command text to replace
  const span = shellSpan(text, first, last);
  if (!span) return fallback;
  const indent = indentOf(text.split('\n')[first.line - 1] ?? '');
  return { form: 'shell', location: first, replaces: span, text: shellText(indent) };
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
  for (const u of applied.env.unset)
    instructions.push({
      value: `remove ${u.value} from the server's environment`,
      ...(u.at ? { at: u.at } : {}),
    });
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

/** One suggestion per finding and remedy, in the findings' order. */
export function suggestFixes(findings: readonly Finding[], readText: ReadText): Suggestion[] {
  return findings.flatMap((f) =>
    // The argv editing knows vLLM's, SGLang's and llama-server's options (llama-argv.ts); an Ollama
    // server's settings are its environment, which a shell line carries as VAR=value prefixes.
    f.deployment.argv?.length ? f.hazard.remedies.map((r) => suggestion(f, r, readText)) : [],
  );
}
