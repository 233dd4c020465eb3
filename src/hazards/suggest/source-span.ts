/**
 * Where a launch is written in its file, so a suggestion can say which region the rewritten launch
 * replaces: a shell command from its first word to the end of its last word (quotes included), or
 * the items of a YAML block list from the first item's dash to the end of the last item.
 * Positions are 1-based; `end` is exclusive (SARIF's convention).
 */
import type { SourceLocation } from '../../core/errors.js';

export interface Position {
  line: number;
  column: number;
}

export interface Span {
  start: Position;
  end: Position;
}

const WORD_END = /[\s;&|<>()]/;

/** The position just after the shell word that starts at `at` (quotes and backslash escapes skipped over). */
export function shellWordEnd(lines: readonly string[], at: Position): Position | undefined {
  let line = at.line - 1;
  let col = at.column - 1;
  let quote: string | undefined;
  while (line < lines.length) {
    const text = lines[line];
    while (col < text.length) {
      const c = text[col];
      if (quote) {
        if (c === '\\' && quote === '"') col++;
        else if (c === quote) quote = undefined;
      } else if (c === '\\') {
        if (col === text.length - 1) break; // a continuation ends the word
        col++;
      } else if (c === "'" || c === '"') quote = c;
      else if (WORD_END.test(c)) return { line: line + 1, column: col + 1 };
      col++;
    }
    if (!quote) return { line: line + 1, column: col + 1 };
    line++;
    col = 0;
  }
  return undefined;
}

/**
 * Where the written word around `at` begins: a lexer locates a quoted word at its content
 * (`{` of `'{"a": 1}'`), the replacement must start at the quote.
 */
export function shellWordStart(lines: readonly string[], at: Position): Position {
  const text = lines[at.line - 1] ?? '';
  let col = at.column - 1;
  while (col > 0 && !WORD_END.test(text[col - 1])) col--;
  // a `KEY=` right before the word (systemd's ExecStart=) belongs to the file, not to the word
  if (/^[A-Za-z_]\w*=$/.test(text.slice(col, at.column - 1))) return { line: at.line, column: at.column };
  return { line: at.line, column: col + 1 };
}

export function shellSpan(text: string, first: SourceLocation, last: SourceLocation): Span | undefined {
  const lines = text.split('\n');
  const end = shellWordEnd(lines, shellWordStart(lines, last));
  return end ? { start: shellWordStart(lines, first), end } : undefined;
}

/** Leading spaces of a line. */
export function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/**
 * The region of YAML block-list items whose scalars start at `first` … `last`: whole lines, from the
 * first item's line to the end of the last item (its continuation lines included). `indent` is the
 * dash column − 1, the indentation the new items need.
 */
export function yamlListSpan(
  text: string,
  first: SourceLocation,
  last: SourceLocation,
): (Span & { indent: number }) | undefined {
  const lines = text.split('\n');
  const head = lines[first.line - 1] ?? '';
  const dash = head.lastIndexOf('- ', first.column - 1);
  if (dash < 0 || head.slice(0, dash).trim() !== '') return undefined;
  let endLine = last.line;
  while (endLine < lines.length && lines[endLine].trim() !== '' && indentOf(lines[endLine]) > dash) endLine++;
  return {
    start: { line: first.line, column: 1 },
    end: { line: endLine, column: (lines[endLine - 1]?.length ?? 0) + 1 },
    indent: dash,
  };
}

/**
 * The YAML block scalar the text at `at` is in, by the line before it: `|` (literal: the file's text
 * verbatim, shell continuations kept) or `>` (folded: line breaks read as spaces); undefined otherwise.
 */
export function blockScalarStyle(text: string, at: SourceLocation): '|' | '>' | undefined {
  const lines = text.split('\n');
  for (let k = at.line - 2; k >= 0; k--) {
    const l = lines[k].trimEnd();
    if (l.trim() === '') continue;
    return (/(?:^|[\s:-])([|>])[-+]?$/.exec(l)?.[1] as '|' | '>' | undefined) ?? undefined;
  }
  return undefined;
}
