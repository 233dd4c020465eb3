/**
 * Shell function definitions in a flat command list. The lexer does not parse compound commands,
 * so `name() { … }` arrives as a command `name` ended by `(`, then the body's commands with `{`
 * and `}` as ordinary first words; `function name { … }` starts with the word `function`. This
 * finds each definition, takes its body out of the sequence (it runs when called) and returns
 * the commands that run at top level.
 */
import type { SimpleCommand, Word } from './shell-lexer.js';

function plain(w: Word | undefined): string | undefined {
  return w && w.parts.length === 1 && w.parts[0].kind === 'literal' && !w.parts[0].quoted ? w.parts[0].text : undefined;
}

/** Fills `functions` (name → body) and returns the top-level commands without the definitions. */
export function collectFunctions(commands: SimpleCommand[], functions: Map<string, SimpleCommand[]>): SimpleCommand[] {
  const top: SimpleCommand[] = [];
  for (let k = 0; k < commands.length; k++) {
    const c = commands[k];
    const def = definition(commands, k);
    if (!def) {
      top.push(c);
      continue;
    }
    const end = bodyEnd(commands, def.bodyStart);
    if (end === undefined) {
      top.push(c);
      continue;
    }
    const body = commands.slice(def.bodyStart, end + 1).map((b, j, all) => stripBraces(b, j === 0, j === all.length - 1));
    functions.set(def.name, collectFunctions(body.filter((b) => b.words.length > 0 || b.redirects.length > 0), functions));
    k = end;
  }
  return top;
}

/** `name() {` or `function name [()] {` starting at command k: the name and where the body starts. */
function definition(commands: SimpleCommand[], k: number): { name: string; bodyStart: number } | undefined {
  const c = commands[k];
  const first = plain(c.words[0]);
  if (first === 'function' && c.words.length >= 2) {
    const name = plain(c.words[1])?.replace(/\(\)$/, '');
    if (!name || !/^[\w.:-]+$/.test(name)) return undefined;
    // `function name {` on one line: the body starts in this very command, at its third word.
    if (plain(c.words[2]) === '{') return { name, bodyStart: k };
    return plain(commands[k + 1]?.words[0]) === '{' ? { name, bodyStart: k + 1 } : c.terminator === '(' ? { name, bodyStart: k + 1 } : undefined;
  }
  if (c.words.length === 1 && c.terminator === '(' && first && /^[\w.:-]+$/.test(first)) {
    const next = commands[k + 1];
    return next && plain(next.words[0]) === '{' ? { name: first, bodyStart: k + 1 } : undefined;
  }
  return undefined;
}

/** Index of the command that closes the body opened at `start` (brace depth back to zero). */
function bodyEnd(commands: SimpleCommand[], start: number): number | undefined {
  let depth = 0;
  for (let k = start; k < commands.length; k++) {
    for (const w of commands[k].words) {
      const t = plain(w);
      if (t === '{') depth++;
      else if (t === '}') depth--;
    }
    if (depth <= 0 && k >= start) return depth === 0 ? k : undefined;
  }
  return undefined;
}

/** Drops the `function name {` head and a `}` word from a body command. */
function stripBraces(c: SimpleCommand, first: boolean, last: boolean): SimpleCommand {
  let words = c.words;
  if (first) {
    const at = words.findIndex((w) => plain(w) === '{');
    words = words.slice(at + 1);
  }
  if (last) words = words.filter((w) => plain(w) !== '}');
  return { ...c, words };
}
