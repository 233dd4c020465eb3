/**
 * A launch's argv written back in the form of the file it came from: a shell command (one line, or
 * one option per line with `\` continuations when the original was written that way), or the items
 * of a YAML list (`- --kv-cache-dtype`, one word per item).
 */
import { stringify } from 'yaml';
import type { ArgToken } from '../../deployment/argv-token.js';
import { segmentArgv } from './segment.js';

const SHELL_SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** One argv word as a POSIX shell word: bare when safe, else single-quoted. */
export function shellQuote(word: string): string {
  if (word !== '' && SHELL_SAFE.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** True when the words were written on more than one line. */
function multiLine(tokens: readonly ArgToken[]): boolean {
  const lines = new Set(tokens.flatMap((t) => (t.at ? [t.at.line] : [])));
  return lines.size > 1;
}

export function renderShell(
  tokens: readonly ArgToken[],
  opts: {
    env?: Record<string, string>;
    multiLine?: boolean;
    /** A word as the file writes it (`$MODEL`, the image that stands for its entrypoint); '' drops it. */
    written?: (t: ArgToken, i: number) => string | undefined;
  } = {},
): string {
  const word = (t: ArgToken, i: number) => opts.written?.(t, i) ?? shellQuote(t.text);
  const join = (from: number, to: number) =>
    tokens
      .slice(from, to)
      .map((t, k) => word(t, from + k))
      .filter((w) => w !== '')
      .join(' ');
  const prefix = Object.entries(opts.env ?? {})
    .map(([k, v]) => `${k}=${shellQuote(v)} `)
    .join('');
  const split = opts.multiLine ?? multiLine(tokens);
  if (!split) return prefix + join(0, tokens.length);
  const { programLength, groups } = segmentArgv(tokens);
  const lines: string[] = [];
  // The program and the positionals right after it (the model) stay on the first line.
  let first = programLength;
  while (groups[0] && groups[0].option === undefined && groups[0].start === first)
    first = groups.shift()!.end;
  lines.push(prefix + join(0, first));
  for (const g of groups) lines.push(`  ${join(g.start, g.end)}`);
  return lines.join(' \\\n');
}

/** The words as YAML block-list items at `indent` spaces (`- word`, quoted where YAML needs it). */
export function renderYamlList(words: readonly string[], indent: number): string {
  const pad = ' '.repeat(indent);
  return words.map((w) => `${pad}- ${stringify(w, { lineWidth: 0 }).trimEnd()}`).join('\n');
}
