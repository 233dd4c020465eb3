/**
 * An Ollama Modelfile (docs/modelfile.md): one instruction per line, case-insensitive (`FROM`,
 * `PARAMETER`, `TEMPLATE`, `SYSTEM`, `ADAPTER`, `LICENSE`, `MESSAGE`, `REQUIRES`), `#` comments, and
 * `"""…"""` strings that may span lines. Only what a server's behaviour depends on is kept: the
 * model it is built FROM and its PARAMETER lines, each located.
 */
import type { Located } from '../../../core/located.js';
import type { Locate } from '../../sources/text-position.js';

export interface Modelfile {
  from?: Located<string>;
  /** PARAMETER name → values in file order (`stop` may repeat). */
  parameters: Map<string, Located<string>[]>;
  /** The instructions seen, upper-cased, in order. */
  instructions: string[];
}

const INSTRUCTIONS = new Set([
  'FROM',
  'PARAMETER',
  'TEMPLATE',
  'SYSTEM',
  'ADAPTER',
  'LICENSE',
  'MESSAGE',
  'REQUIRES',
]);

/** Whether a text reads as a Modelfile: its first instruction is FROM and it holds nothing but Modelfile instructions. */
export function looksLikeModelfile(text: string): boolean {
  const m = parseModelfile(text, () => ({ file: '', line: 1, column: 1 }));
  return m.instructions[0] === 'FROM' && m.instructions.every((i) => INSTRUCTIONS.has(i));
}

export function parseModelfile(text: string, locate: Locate): Modelfile {
  const out: Modelfile = { parameters: new Map(), instructions: [] };
  let i = 0;
  while (i < text.length) {
    // one instruction: skip blank space and comment lines
    const lineEnd = (k: number) => {
      const e = text.indexOf('\n', k);
      return e < 0 ? text.length : e;
    };
    const ws = /^[ \t\r\n]*/.exec(text.slice(i))?.[0].length ?? 0;
    i += ws;
    if (i >= text.length) break;
    if (text[i] === '#') {
      i = lineEnd(i) + 1;
      continue;
    }
    const word = /^[A-Za-z]+/.exec(text.slice(i))?.[0] ?? '';
    const name = word.toUpperCase();
    const argStart = i + word.length + (/^[ \t]*/.exec(text.slice(i + word.length))?.[0].length ?? 0);
    let argEnd: number;
    let next: number;
    const triple = text.indexOf('"""', argStart);
    if (triple >= 0 && triple < lineEnd(argStart)) {
      const close = text.indexOf('"""', triple + 3);
      argEnd = close < 0 ? text.length : close + 3;
      next = lineEnd(argEnd) + 1;
    } else {
      argEnd = lineEnd(argStart);
      next = argEnd + 1;
    }
    if (word) out.instructions.push(name);
    const arg = text.slice(argStart, argEnd).replace(/\r$/, '').trimEnd();
    if (name === 'FROM' && !out.from) out.from = { value: arg, at: locate(argStart) };
    if (name === 'PARAMETER') {
      const m = /^(\S+)[ \t]+(.*)$/.exec(arg);
      if (m) {
        const key = m[1].toLowerCase();
        const valueAt = argStart + m[0].length - m[2].length;
        const list = out.parameters.get(key) ?? [];
        list.push({ value: unquote(m[2].trim()), at: locate(valueAt) });
        out.parameters.set(key, list);
      }
    }
    i = next;
  }
  return out;
}

function unquote(v: string): string {
  return v.length >= 2 && v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1) : v;
}
