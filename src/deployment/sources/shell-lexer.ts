/**
 * A POSIX-shell/bash lexer that keeps positions: scripts → simple commands → words → parts.
 *
 * Why our own: shell-quote loses where each word was written, and lint findings must point at
 * file:line:col. This covers what launch scripts use: quoting ('…', "…", $'…', \x), line
 * continuations (removed everywhere but inside '…'), comments (a `#` starting a word runs to the
 * end of the physical line — so a trailing `\` inside a comment continues nothing), parameter
 * expansion, $(…)/`…`/$((…)) kept as raw text, control operators, redirections and heredocs.
 * Compound commands (if/for/case/functions) are not parsed as such: their keywords arrive as
 * ordinary words, which the interpreter strips. Every offset is into the text given to parseShell.
 */

export interface LiteralPart {
  kind: 'literal';
  text: string;
  /** From '…', "…", $'…' or a backslash escape: not subject to field splitting. */
  quoted: boolean;
  /** Source offset of every character of `text`. */
  offsets: number[];
}

/** `$NAME`, `${NAME}`, `${NAME:-word}` …; op 'complex' for forms we do not evaluate (${#x}, ${x%y} …). */
export interface ParamPart {
  kind: 'param';
  name: string;
  op?: ':-' | '-' | ':=' | '=' | ':+' | '+' | ':?' | '?' | 'complex';
  arg?: WordPart[];
  /** `${NAME[@]}`, `${NAME[*]}`, `${NAME[3]}`: an array subscript. */
  index?: string;
  /** The expansion as written, e.g. `${PORT:-8000}`. */
  raw: string;
  quoted: boolean;
  start: number;
}

/** `$(…)`, `` `…` ``, `$((…))`: never run; kept as written. */
export interface SubstPart {
  kind: 'subst';
  raw: string;
  quoted: boolean;
  start: number;
}

/** The elements of a bash array assignment `NAME=( … )`, as words. */
export interface ArrayPart {
  kind: 'array';
  elements: Word[];
  /** The parenthesised list as written. */
  raw: string;
  quoted: false;
  start: number;
}

export type WordPart = LiteralPart | ParamPart | SubstPart | ArrayPart;

export interface Word {
  parts: WordPart[];
  start: number;
  end: number;
}

export interface Heredoc {
  delimiter: string;
  /** A quoted delimiter (<<'EOF') turns expansion off inside the body. */
  quoted: boolean;
  stripTabs: boolean;
  body: string;
  /** Source offset of every character of `body`. */
  offsets: number[];
  terminated: boolean;
}

export interface Redirect {
  op: string;
  fd?: string;
  target?: Word;
  heredoc?: Heredoc;
  start: number;
}

export interface SimpleCommand {
  words: Word[];
  redirects: Redirect[];
  start: number;
  /** A function definition (`name() { … }`, `function name { … }`): its name and body, parsed. */
  fn?: { name: string; body: SimpleCommand[] };
  /** The operator that ended it: ';', '&', '&&', '||', '|', '\n', ')' … or '' at end of input. */
  terminator: string;
}

/** A syntax error at an offset; the caller turns it into a UserError with a location. */
export class ShellSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'ShellSyntaxError';
  }
}

/** Characters that start quoting, escapes or expansions inside a word. */
const SPECIAL = new Set(['\\', "'", '"', '$', '`']);
const CONTROL_OPS = [';;&', ';;', ';&', '&&', '||', '|&', '|', '&', ';', '(', ')'];
const REDIRECT_OPS = ['<<<', '<<-', '<<', '<>', '<&', '&>>', '&>', '>>', '>&', '>|', '<', '>'];
const PARAM_OPS = [':-', ':=', ':+', ':?', '-', '=', '+', '?'] as const;

function isBlank(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\r' || c === '\f' || c === '\v';
}

function isMeta(c: string): boolean {
  return isBlank(c) || c === '\n' || c === ';' || c === '&' || c === '|' || c === '(' || c === ')' || c === '<' || c === '>';
}

export function parseShell(text: string): SimpleCommand[] {
  return new Lexer(text).parse();
}

/**
 * The parts of an unquoted-delimiter heredoc body: `$…` and `` `…` `` expand, a backslash escapes
 * only `$`, `` ` ``, `\` and newline; quotes are ordinary characters. Offsets are source offsets.
 */
export function parseHeredocBody(h: Heredoc): WordPart[] {
  if (h.quoted) return [{ kind: 'literal', text: h.body, quoted: true, offsets: h.offsets.slice() }];
  const at = (i: number) => h.offsets[i] ?? h.offsets[h.offsets.length - 1] ?? 0;
  let parts: WordPart[];
  try {
    parts = new Lexer(h.body).heredocParts();
  } catch (e) {
    // offsets inside the body are the body's: point the error at the script
    if (e instanceof ShellSyntaxError) throw new ShellSyntaxError(e.message, at(e.offset), e.hint);
    throw e;
  }
  for (const p of parts) {
    if (p.kind === 'literal') p.offsets = p.offsets.map(at);
    else p.start = at(p.start);
  }
  return parts;
}

class Lexer {
  private pos = 0;
  private pending: Heredoc[] = [];
  private readonly commands: SimpleCommand[] = [];
  private current: SimpleCommand | undefined;

  constructor(private readonly text: string) {}

  parse(): SimpleCommand[] {
    const t = this.text;
    for (;;) {
      this.skipBlanks();
      if (this.pos >= t.length) break;
      const c = t[this.pos];
      if (c === '#') {
        while (this.pos < t.length && t[this.pos] !== '\n') this.pos++;
        continue;
      }
      if (c === '\n') {
        this.pos++;
        this.finish('\n');
        this.readHeredocBodies();
        continue;
      }
      if ((c === '<' || c === '>') && t[this.pos + 1] === '(') {
        this.addWord(this.readWord());
        continue;
      }
      const redirect = REDIRECT_OPS.find((op) => t.startsWith(op, this.pos));
      if (redirect) {
        this.readRedirect(redirect, undefined, this.pos);
        continue;
      }
      const op = CONTROL_OPS.find((o) => t.startsWith(o, this.pos));
      if (op) {
        this.pos += op.length;
        this.finish(op);
        continue;
      }
      const start = this.pos;
      const word = this.readWord();
      const fdText = word.parts.length === 1 && word.parts[0].kind === 'literal' && !word.parts[0].quoted ? word.parts[0].text : '';
      const next = t[this.pos];
      if (/^\d+$/.test(fdText) && (next === '<' || next === '>')) {
        const op = REDIRECT_OPS.find((o) => t.startsWith(o, this.pos));
        if (op) {
          this.readRedirect(op, fdText, start);
          continue;
        }
      }
      this.addWord(word);
    }
    this.finish('');
    if (this.pending.length) {
      // `cat <<EOF` on the last line: no body follows.
      for (const h of this.pending) h.terminated = false;
      this.pending = [];
    }
    return this.commands;
  }

  heredocParts(): WordPart[] {
    const t = this.text;
    const parts: WordPart[] = [];
    while (this.pos < t.length) {
      const c = t[this.pos];
      if (c === '\\' && t[this.pos + 1] === '\n') this.pos += 2;
      else if (c === '\\' && t[this.pos + 1] !== undefined && '$`\\'.includes(t[this.pos + 1])) {
        this.pushLiteral(parts, t[this.pos + 1], true, this.pos + 1);
        this.pos += 2;
      } else if (c === '$') this.readDollar(parts, true);
      else if (c === '`') this.readBacktick(parts, true);
      else {
        this.pushLiteral(parts, c, true, this.pos);
        this.pos++;
      }
    }
    return parts;
  }

  private cmd(): SimpleCommand {
    if (!this.current) this.current = { words: [], redirects: [], start: this.pos, terminator: '' };
    return this.current;
  }

  private addWord(w: Word): void {
    const c = this.cmd();
    if (c.words.length === 0 && c.redirects.length === 0) c.start = w.start;
    c.words.push(w);
  }

  private finish(terminator: string): void {
    if (this.current) {
      this.current.terminator = terminator;
      this.commands.push(this.current);
      this.current = undefined;
    }
  }

  /** Removes `\`-newline pairs at pos (they join lines in unquoted and double-quoted text). */
  private skipContinuations(): void {
    const t = this.text;
    for (;;) {
      if (t[this.pos] === '\\' && t[this.pos + 1] === '\n') this.pos += 2;
      else if (t[this.pos] === '\\' && t[this.pos + 1] === '\r' && t[this.pos + 2] === '\n') this.pos += 3;
      else return;
    }
  }

  private skipBlanks(): void {
    for (;;) {
      this.skipContinuations();
      if (this.pos < this.text.length && isBlank(this.text[this.pos])) this.pos++;
      else return;
    }
  }

  private readRedirect(op: string, fd: string | undefined, start: number): void {
    this.pos += op.length;
    const c = this.cmd();
    if (c.words.length === 0 && c.redirects.length === 0) c.start = start;
    this.skipBlanks();
    const redirect: Redirect = { op, fd, start };
    const procSubst = (this.text[this.pos] === '<' || this.text[this.pos] === '>') && this.text[this.pos + 1] === '(';
    if (procSubst || (this.pos < this.text.length && !isMeta(this.text[this.pos]))) redirect.target = this.readWord();
    else if (op !== '>&' && op !== '<&')
      throw new ShellSyntaxError(`redirection ${op} has no target`, start, 'write a file name after the redirection');
    if ((op === '<<' || op === '<<-') && redirect.target) {
      const parts = redirect.target.parts;
      const heredoc: Heredoc = {
        delimiter: parts.map((p) => (p.kind === 'literal' ? p.text : p.raw)).join(''),
        quoted: parts.some((p) => p.kind === 'literal' && p.quoted),
        stripTabs: op === '<<-',
        body: '',
        offsets: [],
        terminated: true,
      };
      redirect.heredoc = heredoc;
      this.pending.push(heredoc);
    }
    c.redirects.push(redirect);
  }

  private readHeredocBodies(): void {
    const t = this.text;
    for (const h of this.pending) {
      let done = false;
      while (this.pos < t.length) {
        let end = t.indexOf('\n', this.pos);
        const next = end < 0 ? t.length : end + 1;
        if (end < 0) end = t.length;
        let lineStart = this.pos;
        if (h.stripTabs) while (lineStart < end && t[lineStart] === '\t') lineStart++;
        const line = t.slice(lineStart, end).replace(/\r$/, '');
        this.pos = next;
        if (line === h.delimiter) {
          done = true;
          break;
        }
        for (let i = lineStart; i < next; i++) {
          h.body += t[i];
          h.offsets.push(i);
        }
        if (next === t.length && end === t.length) {
          h.body += '\n';
          h.offsets.push(t.length);
        }
      }
      h.terminated = done;
    }
    this.pending = [];
  }

  private readWord(): Word {
    const start = this.pos;
    const parts: WordPart[] = [];
    this.readParts(parts, (c) => isMeta(c), false);
    const only = parts.length === 1 && parts[0].kind === 'literal' && !parts[0].quoted ? parts[0].text : '';
    if (this.text[this.pos] === '(' && /^[A-Za-z_]\w*\+?=$/.test(only)) {
      parts.push(this.readArray());
      return { parts, start, end: this.pos };
    }
    if (this.text[this.pos] === '(' && this.pos > start && /[@?*+!]$/.test(this.text.slice(start, this.pos))) {
      // extglob such as @(a|b): keep as literal text up to the closing paren
      const end = this.matchParen(this.pos + 1, this.pos - 1);
      this.pushLiteral(parts, this.text.slice(this.pos, end), false, this.pos);
      this.pos = end;
      this.readParts(parts, (c) => isMeta(c), false);
    }
    if ((this.text[start] === '<' || this.text[start] === '>') && this.text[start + 1] === '(' && parts.length === 0) {
      const end = this.matchParen(start + 2, start);
      parts.push({ kind: 'subst', raw: this.text.slice(start, end), quoted: false, start });
      this.pos = end;
    }
    return { parts, start, end: this.pos };
  }

  /** Reads word parts until `stop` says so at an unquoted character. */
  private readParts(parts: WordPart[], stop: (c: string) => boolean, quoted: boolean): void {
    const t = this.text;
    for (;;) {
      this.skipContinuations();
      if (this.pos >= t.length) return;
      const c = t[this.pos];
      if (stop(c)) return;
      if (c === '\\') {
        if (this.pos + 1 < t.length) this.pushLiteral(parts, t[this.pos + 1], true, this.pos + 1);
        else this.pushLiteral(parts, '\\', false, this.pos);
        this.pos += 2;
      } else if (c === "'") {
        this.readSingleQuoted(parts);
      } else if (c === '$' && t[this.pos + 1] === "'") {
        this.readAnsiC(parts);
      } else if (c === '$' && t[this.pos + 1] === '"') {
        this.pos++;
        this.readDoubleQuoted(parts);
      } else if (c === '"') {
        this.readDoubleQuoted(parts);
      } else if (c === '$') {
        this.readDollar(parts, quoted);
      } else if (c === '`') {
        this.readBacktick(parts, quoted);
      } else {
        // a run of ordinary characters at once (most of a script)
        let end = this.pos + 1;
        while (end < t.length && !SPECIAL.has(t[end]) && !stop(t[end])) end++;
        this.pushLiteral(parts, t.slice(this.pos, end), quoted, this.pos);
        this.pos = end;
      }
    }
  }

  private pushLiteral(parts: WordPart[], text: string, quoted: boolean, offset: number): void {
    const last = parts[parts.length - 1];
    const target = last && last.kind === 'literal' && last.quoted === quoted ? last : undefined;
    const offsets = target ? target.offsets : [];
    for (let i = 0; i < text.length; i++) offsets.push(offset + i);
    if (target) target.text += text;
    else parts.push({ kind: 'literal', text, quoted, offsets });
  }

  private readSingleQuoted(parts: WordPart[]): void {
    const t = this.text;
    const open = this.pos;
    const close = t.indexOf("'", open + 1);
    if (close < 0) throw unterminated("'", open);
    this.pushLiteral(parts, t.slice(open + 1, close), true, open + 1);
    this.pos = close + 1;
  }

  private readAnsiC(parts: WordPart[]): void {
    const t = this.text;
    const open = this.pos;
    this.pos += 2;
    this.pushLiteral(parts, '', true, open);
    const escapes: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', a: '\x07', b: '\b', e: '\x1b', f: '\f', v: '\v' };
    for (;;) {
      if (this.pos >= t.length) throw unterminated("$'", open);
      const c = t[this.pos];
      if (c === "'") {
        this.pos++;
        return;
      }
      if (c === '\\' && this.pos + 1 < t.length) {
        const e = t[this.pos + 1];
        this.pushLiteral(parts, escapes[e] ?? '\\' + e, true, this.pos);
        this.pos += 2;
      } else {
        this.pushLiteral(parts, c, true, this.pos);
        this.pos++;
      }
    }
  }

  private readDoubleQuoted(parts: WordPart[]): void {
    const t = this.text;
    const open = this.pos;
    this.pos++;
    this.pushLiteral(parts, '', true, open);
    for (;;) {
      this.skipContinuations();
      if (this.pos >= t.length) throw unterminated('"', open);
      const c = t[this.pos];
      if (c === '"') {
        this.pos++;
        return;
      }
      if (c === '\\' && t[this.pos + 1] !== undefined && '$`"\\'.includes(t[this.pos + 1])) {
        this.pushLiteral(parts, t[this.pos + 1], true, this.pos + 1);
        this.pos += 2;
      } else if (c === '$' && t[this.pos + 1] !== '"' && t[this.pos + 1] !== "'") {
        this.readDollar(parts, true);
      } else if (c === '`') {
        this.readBacktick(parts, true);
      } else {
        this.pushLiteral(parts, c, true, this.pos);
        this.pos++;
      }
    }
  }

  private readBacktick(parts: WordPart[], quoted: boolean): void {
    const t = this.text;
    const open = this.pos;
    let i = open + 1;
    while (i < t.length && t[i] !== '`') i += t[i] === '\\' ? 2 : 1;
    if (i >= t.length) throw unterminated('`', open);
    parts.push({ kind: 'subst', raw: t.slice(open, i + 1), quoted, start: open });
    this.pos = i + 1;
  }

  private readDollar(parts: WordPart[], quoted: boolean): void {
    const t = this.text;
    const start = this.pos;
    const next = t[start + 1] ?? '';
    if (next === '(') {
      const end = this.matchParen(start + 2, start);
      parts.push({ kind: 'subst', raw: t.slice(start, end), quoted, start });
      this.pos = end;
    } else if (next === '{') {
      this.readBraceParam(parts, quoted);
    } else if (/[A-Za-z_]/.test(next)) {
      let end = start + 1;
      while (end < t.length && /\w/.test(t[end])) end++;
      parts.push({ kind: 'param', name: t.slice(start + 1, end), raw: t.slice(start, end), quoted, start });
      this.pos = end;
    } else if (/[0-9@*#?$!-]/.test(next) && next !== '') {
      parts.push({ kind: 'param', name: next, raw: t.slice(start, start + 2), quoted, start });
      this.pos = start + 2;
    } else {
      this.pushLiteral(parts, '$', quoted, start);
      this.pos++;
    }
  }

  private readBraceParam(parts: WordPart[], quoted: boolean): void {
    const t = this.text;
    const start = this.pos;
    const end = this.matchBrace(start + 2, start);
    const inner = t.slice(start + 2, end - 1);
    const raw = t.slice(start, end);
    const name = /^(?:[A-Za-z_]\w*|\d+|[@*#?$!-])/.exec(inner)?.[0] ?? '';
    const rest = inner.slice(name.length);
    const op = PARAM_OPS.find((o) => rest.startsWith(o));
    const subscript = /^\[(@|\*|\d+)\]$/.exec(rest);
    if (!name || (inner.startsWith('#') && inner.length > 1) || inner.startsWith('!')) {
      parts.push({ kind: 'param', name: name || inner, op: 'complex', raw, quoted, start });
    } else if (subscript) {
      parts.push({ kind: 'param', name, index: subscript[1], raw, quoted, start });
    } else if (rest === '') {
      parts.push({ kind: 'param', name, raw, quoted, start });
    } else if (op) {
      const arg: WordPart[] = [];
      this.pos = start + 2 + name.length + op.length;
      this.readParts(arg, (c) => c === '}', quoted);
      parts.push({ kind: 'param', name, op, arg, raw, quoted, start });
    } else {
      parts.push({ kind: 'param', name, op: 'complex', raw, quoted, start });
    }
    this.pos = end;
  }

  /** `( elem elem … )` after `NAME=`: words across lines, comments allowed, up to the closing paren. */
  private readArray(): ArrayPart {
    const t = this.text;
    const start = this.pos;
    this.pos++;
    const elements: Word[] = [];
    for (;;) {
      this.skipBlanks();
      if (this.pos >= t.length) throw unterminated('(', start);
      const c = t[this.pos];
      if (c === ')') {
        this.pos++;
        return { kind: 'array', elements, raw: t.slice(start, this.pos), quoted: false, start };
      }
      if (c === '\n') this.pos++;
      else if (c === '#') while (this.pos < t.length && t[this.pos] !== '\n') this.pos++;
      else {
        const w = this.readWord();
        if (w.end === w.start) throw new ShellSyntaxError(`unexpected ${c} in an array`, this.pos, 'array elements are words: NAME=(a b "c d")');
        elements.push(w);
      }
    }
  }

  /** Offset just past the `)` that closes a `(` whose content starts at `from`. */
  private matchParen(from: number, open: number): number {
    return this.matchClosing(from, open, '(', ')', '$(');
  }

  private matchBrace(from: number, open: number): number {
    return this.matchClosing(from, open, '{', '}', '${');
  }

  private matchClosing(from: number, open: number, inc: string, dec: string, what: string): number {
    const t = this.text;
    let depth = 1;
    let i = from;
    while (i < t.length) {
      const c = t[i];
      if (c === '\\') i += 2;
      else if (c === "'" && inc === '(') {
        const close = t.indexOf("'", i + 1);
        if (close < 0) throw unterminated("'", i);
        i = close + 1;
      } else if (c === '"') {
        i++;
        while (i < t.length && t[i] !== '"') i += t[i] === '\\' ? 2 : 1;
        if (i >= t.length) throw unterminated('"', i);
        i++;
      } else {
        if (c === inc) depth++;
        else if (c === dec && --depth === 0) return i + 1;
        i++;
      }
    }
    throw unterminated(what, open);
  }
}

function unterminated(what: string, offset: number): ShellSyntaxError {
  const closer = what === '$(' ? ')' : what === '${' ? '}' : what === "$'" ? "'" : what;
  return new ShellSyntaxError(`unterminated ${what} (no closing ${closer})`, offset, `close the ${what} that starts here`);
}
