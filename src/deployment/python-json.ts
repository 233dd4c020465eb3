/**
 * JSON as Python's `json.loads` reads it — which is how transformers and vLLM read config.json —
 * with the position of the first error. It differs from JSON.parse in two ways that matter for
 * real checkpoint configs: `NaN`, `Infinity` and `-Infinity` are accepted (Python's json.dumps
 * writes them), and a syntax error is reported as file:line:col (Node's messages do not always
 * carry a position).
 */
import { UserError, type SourceLocation } from '../core/errors.js';

class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/** 1-based line and column of a character offset. */
export function locateOffset(file: string, text: string, offset: number): SourceLocation {
  let line = 1;
  let lineStart = 0;
  for (let k = 0; k < offset && k < text.length; k++) {
    if (text[k] === '\n') {
      line++;
      lineStart = k + 1;
    }
  }
  return { file, line, column: offset - lineStart + 1 };
}

/** Parse `text` (the contents of `file`); a syntax error is a UserError at its file:line:col. */
export function parsePythonJson(text: string, file: string, what = 'JSON'): unknown {
  try {
    return new Parser(text).document();
  } catch (e) {
    if (!(e instanceof JsonSyntaxError)) throw e;
    throw new UserError(`${file} is not valid ${what}: ${e.message}`, {
      code: 'E_JSON',
      at: locateOffset(file, text, e.offset),
      hint: 'fix the JSON syntax at that position (a missing comma or quote, or a trailing comma)',
    });
  }
}

class Parser {
  private pos = 0;
  constructor(private readonly text: string) {}

  document(): unknown {
    if (this.text.charCodeAt(0) === 0xfeff) this.pos = 1; // a UTF-8 BOM is not JSON; tolerate it
    const v = this.value();
    this.ws();
    if (this.pos < this.text.length) this.fail('unexpected text after the JSON value');
    return v;
  }

  private fail(message: string, at = this.pos): never {
    throw new JsonSyntaxError(message, at);
  }

  private ws(): void {
    while (this.pos < this.text.length && ' \t\n\r'.includes(this.text[this.pos])) this.pos++;
  }

  private value(): unknown {
    this.ws();
    const c = this.text[this.pos];
    if (c === undefined) this.fail('unexpected end of input');
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    for (const [word, v] of [
      ['true', true],
      ['false', false],
      ['null', null],
      ['NaN', NaN],
      ['Infinity', Infinity],
      ['-Infinity', -Infinity],
    ] as const) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return v;
      }
    }
    if (c === '-' || (c >= '0' && c <= '9')) return this.number();
    return this.fail(`unexpected character ${JSON.stringify(c)}`);
  }

  private object(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.pos++; // {
    this.ws();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return out;
    }
    for (;;) {
      this.ws();
      if (this.text[this.pos] !== '"') this.fail('expected a double-quoted property name');
      const key = this.string();
      this.ws();
      if (this.text[this.pos] !== ':') this.fail("expected ':' after a property name");
      this.pos++;
      const v = this.value();
      Object.defineProperty(out, key, { value: v, writable: true, enumerable: true, configurable: true });
      this.ws();
      const c = this.text[this.pos];
      if (c === ',') {
        this.pos++;
        continue;
      }
      if (c === '}') {
        this.pos++;
        return out;
      }
      this.fail("expected ',' or '}' after a property value");
    }
  }

  private array(): unknown[] {
    const out: unknown[] = [];
    this.pos++; // [
    this.ws();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.ws();
      const c = this.text[this.pos];
      if (c === ',') {
        this.pos++;
        continue;
      }
      if (c === ']') {
        this.pos++;
        return out;
      }
      this.fail("expected ',' or ']' after an array element");
    }
  }

  private string(): string {
    const start = this.pos;
    this.pos++; // "
    let out = '';
    for (;;) {
      const c = this.text[this.pos];
      if (c === undefined) this.fail('unterminated string', start);
      if (c === '"') {
        this.pos++;
        return out;
      }
      if (c < ' ') this.fail('control character in a string');
      if (c === '\\') {
        const e = this.text[this.pos + 1];
        const simple: Record<string, string> = {
          '"': '"',
          '\\': '\\',
          '/': '/',
          b: '\b',
          f: '\f',
          n: '\n',
          r: '\r',
          t: '\t',
        };
        if (e !== undefined && e in simple) {
          out += simple[e];
          this.pos += 2;
        } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(this.text.slice(this.pos + 2, this.pos + 6))) {
          out += String.fromCharCode(parseInt(this.text.slice(this.pos + 2, this.pos + 6), 16));
          this.pos += 6;
        } else {
          this.fail('invalid escape in a string');
        }
      } else {
        out += c;
        this.pos++;
      }
    }
  }

  private number(): number {
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(this.text.slice(this.pos, this.pos + 400));
    if (!m) this.fail('invalid number');
    this.pos += m[0].length;
    return Number(m[0]);
  }
}
