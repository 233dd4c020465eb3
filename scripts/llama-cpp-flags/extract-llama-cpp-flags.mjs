#!/usr/bin/env node
/**
 * Reads llama.cpp's option table statically from one llama.cpp checkout (or one ref of a clone) and
 * writes data/llama-cpp-flags/<tag>.json: every `add_opt(common_arg(...)...)` definition of
 * `common_params_parser_init` in common/arg.cpp, with its names, negated names, value placeholder,
 * value kind (from the handler lambda's signature), choices, env variable, the LLAMA_EXAMPLE_* set it
 * applies to (and whether llama-server gets it), the first line of its help and, where common.h's
 * initializers let it be read, the default the help prints.
 *
 *   node scripts/llama-cpp-flags/extract-llama-cpp-flags.mjs LLAMA_CPP_DIR [--ref REF] [--tag TAG]
 *        [--repository OWNER/NAME] [--snapshot TEXT] [--out FILE | --stdout]
 *
 * LLAMA_CPP_DIR is a work tree (files are read from disk) or, with --ref, any clone (files are read
 * with `git show REF:path`, no checkout needed). The tag defaults to --ref when that names a tag of
 * the clone, else to the tag pointing at HEAD. No dependencies; C++ is read with a small tokenizer
 * (comments, string/char/raw-string literals, brackets) and a parser for the few shapes arg.cpp
 * uses. Anything of another shape is an error (exit 1) naming the line: nothing is dropped silently.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const GENERATOR = 'scripts/llama-cpp-flags/extract-llama-cpp-flags.mjs';
const SERVER = 'LLAMA_EXAMPLE_SERVER';
const FILES = {
  arg: 'common/arg.cpp',
  argH: 'common/arg.h',
  common: 'common/common.h',
  llama: 'src/llama.cpp',
  ggml: 'ggml/src/ggml.c',
  spec: 'common/speculative.cpp',
};
const HELP_MAX = 100;

class ExtractError extends Error {}
const fail = (msg) => {
  throw new ExtractError(msg);
};

// ---------------------------------------------------------------------------------------------
// command line

function parseArgv(argv) {
  const opts = {
    dir: null,
    ref: null,
    tag: null,
    repository: 'ggml-org/llama.cpp',
    snapshot: null,
    out: null,
    stdout: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) fail(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--ref') opts.ref = next();
    else if (a === '--tag') opts.tag = next();
    else if (a === '--repository') opts.repository = next();
    else if (a === '--snapshot') opts.snapshot = next();
    else if (a === '--out') opts.out = next();
    else if (a === '--stdout') opts.stdout = true;
    else if (a === '-h' || a === '--help') {
      process.stdout.write(
        'usage: extract-llama-cpp-flags.mjs LLAMA_CPP_DIR [--ref REF] [--tag TAG] [--repository OWNER/NAME] [--snapshot TEXT] [--out FILE | --stdout]\n',
      );
      process.exit(0);
    } else if (a.startsWith('-')) fail(`unknown option ${a}`);
    else if (opts.dir === null) opts.dir = a;
    else fail(`unexpected argument ${a}`);
  }
  if (!opts.dir)
    fail('usage: extract-llama-cpp-flags.mjs LLAMA_CPP_DIR [--ref REF] [--tag TAG] [--out FILE | --stdout]');
  return opts;
}

function git(dir, ...args) {
  return execFileSync('git', ['-C', dir, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 256 << 20,
  });
}

// ---------------------------------------------------------------------------------------------
// tokenizer: identifiers, numbers, string literals (decoded), char literals, punctuation

const PUNCT3 = ['...', '<<=', '>>=', '->*'];
const PUNCT2 = [
  '::',
  '->',
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '++',
  '--',
  '+=',
  '-=',
  '*=',
  '/=',
  '|=',
  '&=',
  '<<',
  '>>',
];
const STRING_MACROS = {
  PRId64: 'lld',
  PRIu64: 'llu',
  PRIi64: 'lli',
  PRId32: 'd',
  PRIu32: 'u',
  PRIx64: 'llx',
};

function decodeEscapes(s, file, line) {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c !== '\\') {
      out += c;
      continue;
    }
    const d = s[++i];
    const simple = {
      n: '\n',
      t: '\t',
      r: '\r',
      '\\': '\\',
      '"': '"',
      "'": "'",
      '?': '?',
      a: '\x07',
      b: '\b',
      f: '\f',
      v: '\v',
    };
    if (d in simple) out += simple[d];
    else if (d === 'x') {
      const m = /^[0-9a-fA-F]+/.exec(s.slice(i + 1));
      if (!m) fail(`${file}:${line}: bad \\x escape`);
      out += String.fromCharCode(parseInt(m[0], 16));
      i += m[0].length;
    } else if (/[0-7]/.test(d)) {
      const m = /^[0-7]{1,3}/.exec(s.slice(i));
      out += String.fromCharCode(parseInt(m[0], 8));
      i += m[0].length - 1;
    } else fail(`${file}:${line}: unknown escape \\${d}`);
  }
  return out;
}

function tokenize(src, file) {
  const toks = [];
  let i = 0;
  let line = 1;
  let atLineStart = true;
  const n = src.length;
  while (i < n) {
    const c = src[i];
    if (c === '\n') {
      line++;
      i++;
      atLineStart = true;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\f' || c === '\v') {
      i++;
      continue;
    }
    if (c === '#' && atLineStart) {
      // preprocessor line (with continuations): skipped
      while (i < n && src[i] !== '\n') {
        if (src[i] === '\\' && src[i + 1] === '\n') {
          i += 2;
          line++;
          continue;
        }
        if (src[i] === '/' && src[i + 1] === '*') break;
        i++;
      }
      continue;
    }
    atLineStart = false;
    if (c === '/' && src[i + 1] === '/') {
      while (i < n && src[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && src[i + 1] === '*') {
      const end = src.indexOf('*/', i + 2);
      if (end < 0) fail(`${file}:${line}: unterminated comment`);
      for (let k = i; k < end; k++) if (src[k] === '\n') line++;
      i = end + 2;
      continue;
    }
    // raw string: R"delim( ... )delim", with optional u8/u/U/L prefix
    const raw = /^(?:u8|u|U|L)?R"([^()\\\s]{0,16})\(/.exec(src.slice(i, i + 24));
    if (raw) {
      const close = `)${raw[1]}"`;
      const start = i + raw[0].length;
      const end = src.indexOf(close, start);
      if (end < 0) fail(`${file}:${line}: unterminated raw string`);
      const v = src.slice(start, end);
      toks.push({ t: 'str', v, line });
      for (const ch of v) if (ch === '\n') line++;
      i = end + close.length;
      continue;
    }
    const pre = /^(?:u8|u|U|L)?(["'])/.exec(src.slice(i, i + 3));
    if (pre && (c === '"' || c === "'" || /[uUL]/.test(c))) {
      const q = pre[1];
      let j = i + pre[0].length;
      let body = '';
      while (j < n && src[j] !== q) {
        if (src[j] === '\n') fail(`${file}:${line}: newline in literal`);
        if (src[j] === '\\') {
          body += src[j] + src[j + 1];
          j += 2;
          continue;
        }
        body += src[j++];
      }
      if (j >= n) fail(`${file}:${line}: unterminated literal`);
      toks.push({ t: q === '"' ? 'str' : 'chr', v: decodeEscapes(body, file, line), line });
      i = j + 1;
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < n && /[A-Za-z0-9_]/.test(src[j])) j++;
      toks.push({ t: 'id', v: src.slice(i, j), line });
      i = j;
      continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      let j = i + 1;
      while (
        j < n &&
        (/[0-9A-Za-z_.']/.test(src[j]) ||
          ((src[j] === '+' || src[j] === '-') &&
            /[eEpP]/.test(src[j - 1]) &&
            !/^0[xX]/.test(src.slice(i, j))))
      )
        j++;
      toks.push({ t: 'num', v: src.slice(i, j), line });
      i = j;
      continue;
    }
    const p3 = src.slice(i, i + 3);
    const p2 = src.slice(i, i + 2);
    const v = PUNCT3.includes(p3) ? p3 : PUNCT2.includes(p2) ? p2 : c;
    toks.push({ t: 'p', v, line });
    i += v.length;
  }
  return toks;
}

const OPEN = { '(': ')', '[': ']', '{': '}' };
const CLOSE = new Set([')', ']', '}']);
const isP = (tok, v) => tok && tok.t === 'p' && tok.v === v;
const isId = (tok, v) => tok && tok.t === 'id' && (v === undefined || tok.v === v);

/** Index of the bracket closing the one at toks[i]. */
function matchClose(toks, i, file) {
  const want = [OPEN[toks[i].v]];
  for (let j = i + 1; j < toks.length; j++) {
    const t = toks[j];
    if (t.t !== 'p') continue;
    if (OPEN[t.v]) want.push(OPEN[t.v]);
    else if (CLOSE.has(t.v)) {
      const w = want.pop();
      if (w !== t.v) fail(`${file}:${t.line}: '${t.v}' where '${w}' was expected`);
      if (want.length === 0) return j;
    }
  }
  fail(`${file}:${toks[i].line}: '${toks[i].v}' is never closed`);
}

/** Splits toks[a..b) at top-level commas. */
function splitTop(toks, a, b, file) {
  const parts = [];
  let start = a;
  for (let j = a; j < b; j++) {
    const t = toks[j];
    if (t.t === 'p' && OPEN[t.v]) j = matchClose(toks, j, file);
    else if (isP(t, ',')) {
      parts.push(toks.slice(start, j));
      start = j + 1;
    }
  }
  if (start < b) parts.push(toks.slice(start, b));
  return parts;
}

/** Source-like text of a token list (for conditions and messages). */
function text(toks) {
  let s = '';
  let prev = null;
  for (const t of toks) {
    const v = t.t === 'str' ? JSON.stringify(t.v) : t.t === 'chr' ? `'${t.v}'` : t.v;
    const tight =
      prev === null ||
      (['.', '::', '->', '(', '[', '!', '~'].includes(prev.v) && prev.t === 'p') ||
      (t.t === 'p' &&
        ['.', '::', '->', ')', ']', ',', ';', '('].includes(t.v) &&
        !(t.v === '(' && prev.t === 'p' && !CLOSE.has(prev.v)));
    s += (tight ? '' : ' ') + v;
    prev = t;
  }
  return s;
}

/** Concatenation of adjacent string literals (and the <inttypes.h> macros between them); null if not that. */
function stringConcat(toks) {
  if (toks.length === 0 || !toks.some((t) => t.t === 'str')) return null;
  let s = '';
  for (const t of toks) {
    if (t.t === 'str') s += t.v;
    else if (t.t === 'id' && t.v in STRING_MACROS) s += STRING_MACROS[t.v];
    else return null;
  }
  return s;
}

// ---------------------------------------------------------------------------------------------
// conditions: `ex == LLAMA_EXAMPLE_X` (and !=, !, &&, ||, parentheses) are evaluated for
// ex = LLAMA_EXAMPLE_SERVER; anything else is unknown (null) - a build or runtime condition.

function evalCond(toks) {
  let i = 0;
  const peek = () => toks[i];
  const or = () => {
    let v = and();
    while (isP(peek(), '||')) {
      i++;
      const w = and();
      v = v === true || w === true ? true : v === false && w === false ? false : null;
    }
    return v;
  };
  const and = () => {
    let v = unary();
    while (isP(peek(), '&&')) {
      i++;
      const w = unary();
      v = v === false || w === false ? false : v === true && w === true ? true : null;
    }
    return v;
  };
  const unary = () => {
    if (isP(peek(), '!')) {
      i++;
      const v = unary();
      return v === null ? null : !v;
    }
    if (isP(peek(), '(')) {
      const close = matchClose(toks, i, 'condition');
      const v = evalCond(toks.slice(i + 1, close));
      i = close + 1;
      return v;
    }
    if (
      isId(peek(), 'ex') &&
      (isP(toks[i + 1], '==') || isP(toks[i + 1], '!=')) &&
      isId(toks[i + 2]) &&
      toks[i + 2].v.startsWith('LLAMA_EXAMPLE_')
    ) {
      const eq = toks[i + 2].v === SERVER;
      const v = toks[i + 1].v === '==' ? eq : !eq;
      i += 3;
      return v;
    }
    // any other operand: consume up to the next top-level && / || / end
    while (i < toks.length && !isP(peek(), '&&') && !isP(peek(), '||')) {
      if (peek().t === 'p' && OPEN[peek().v]) i = matchClose(toks, i, 'condition');
      i++;
    }
    return null;
  };
  const v = or();
  return i === toks.length ? v : null;
}

// ---------------------------------------------------------------------------------------------
// common.h: struct member initializers (for the defaults the help strings print)

function readStructs(toks, file) {
  const structs = new Map();
  const walk = (from, to) => {
    for (let i = from; i < to; i++) {
      if (isId(toks[i], 'struct') && isId(toks[i + 1]) && isP(toks[i + 2], '{')) {
        const close = matchClose(toks, i + 2, file);
        structs.set(toks[i + 1].v, members(i + 3, close));
        walk(i + 3, close);
        i = close;
      }
    }
  };
  const members = (from, to) => {
    const out = new Map();
    let start = from;
    for (let j = from; j < to; j++) {
      const t = toks[j];
      if (t.t === 'p' && t.v === '{') {
        // a method body or nested struct ends a declaration without ';'
        const close = matchClose(toks, j, file);
        const stmt = toks.slice(start, j);
        const isInit = stmt.some((s) => isP(s, '='));
        j = close;
        if (!isInit && !(stmt.length && isId(stmt[0], 'struct'))) {
          if (!isP(toks[j + 1], ';')) start = j + 1;
        }
        continue;
      }
      if (t.t === 'p' && (t.v === '(' || t.v === '[')) {
        j = matchClose(toks, j, file);
        continue;
      }
      if (isP(t, ';')) {
        member(toks.slice(start, j), out);
        start = j + 1;
      }
    }
    return out;
  };
  const member = (stmt, out) => {
    if (stmt.length < 2) return;
    const eq = stmt.findIndex((s) => isP(s, '='));
    const decl = eq >= 0 ? stmt.slice(0, eq) : stmt;
    if (decl.some((s) => isP(s, '('))) return; // a function
    let k = decl.length - 1;
    if (isP(decl[k], ']')) {
      while (k >= 0 && !isP(decl[k], '[')) k--;
      k--;
    }
    const name = decl[k];
    if (!isId(name)) return;
    const type = decl
      .slice(0, k)
      .filter((s) => s.t === 'id' && !['struct', 'enum', 'const', 'static', 'std', 'mutable'].includes(s.v));
    out.set(name.v, {
      type: type.length ? type[type.length - 1].v : null,
      init: eq >= 0 ? stmt.slice(eq + 1) : null,
    });
  };
  walk(0, toks.length);
  return structs;
}

/** A literal's value: {v} for numbers, bools and strings, {enumConst} for an identifier; null otherwise. */
function literalValue(toks) {
  if (!toks || toks.length === 0) return null;
  const s = stringConcat(toks);
  if (s !== null) return { v: s };
  if (toks.length === 1 && isId(toks[0], 'true')) return { v: true };
  if (toks.length === 1 && isId(toks[0], 'false')) return { v: false };
  if (toks.length === 1 && isId(toks[0], 'nullptr')) return null;
  if (toks.length === 1 && isId(toks[0])) return { enumConst: toks[0].v };
  // arithmetic on number literals: + - * / and parentheses
  let i = 0;
  const num = (t) => {
    const m = /^(0[xX][0-9a-fA-F]+|[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+\.)[fFlLuU]*$/.exec(
      t.v.replace(/'/g, ''),
    );
    return m ? Number(m[1]) : NaN;
  };
  const atom = () => {
    const t = toks[i++];
    if (!t) return NaN;
    if (t.t === 'num') return num(t);
    if (isP(t, '-')) return -atom();
    if (isP(t, '+')) return atom();
    if (isP(t, '(')) {
      const v = sum();
      return isP(toks[i++], ')') ? v : NaN;
    }
    return NaN;
  };
  const product = () => {
    let v = atom();
    while (isP(toks[i], '*') || isP(toks[i], '/')) v = toks[i++].v === '*' ? v * atom() : v / atom();
    return v;
  };
  const sum = () => {
    let v = product();
    while (isP(toks[i], '+') || isP(toks[i], '-')) v = toks[i++].v === '+' ? v + product() : v - product();
    return v;
  };
  const v = sum();
  return i === toks.length && Number.isFinite(v) ? { v } : null;
}

// ---------------------------------------------------------------------------------------------
// src/llama.cpp: `const char * NAME(enum T x) { switch (x) { case E: return "s"; ... } }`
// ggml/src/ggml.c: type_traits[GGML_TYPE_X] = { .type_name = "x", ... }

function readNameFunctions(toks, file) {
  const fns = new Map();
  for (let i = 0; i + 4 < toks.length; i++) {
    let at;
    if (
      isId(toks[i], 'const') &&
      isId(toks[i + 1], 'char') &&
      isP(toks[i + 2], '*') &&
      isId(toks[i + 3]) &&
      isP(toks[i + 4], '(')
    )
      at = i + 3;
    else if (
      isId(toks[i], 'std') &&
      isP(toks[i + 1], '::') &&
      isId(toks[i + 2], 'string') &&
      isId(toks[i + 3]) &&
      isP(toks[i + 4], '(')
    )
      at = i + 3;
    else continue;
    const pclose = matchClose(toks, at + 1, file);
    if (!isP(toks[pclose + 1], '{')) continue;
    const bclose = matchClose(toks, pclose + 1, file);
    const map = {};
    for (let j = pclose + 2; j < bclose; j++) {
      if (
        isId(toks[j], 'case') &&
        isId(toks[j + 1]) &&
        isP(toks[j + 2], ':') &&
        isId(toks[j + 3], 'return') &&
        toks[j + 4]?.t === 'str'
      )
        map[toks[j + 1].v] = toks[j + 4].v;
    }
    if (Object.keys(map).length) fns.set(toks[at].v, map);
    i = bclose;
  }
  return fns;
}

/** enum NAME { A, B = 3, ... }: member -> value, in order. */
function readEnums(toks, file) {
  const enums = new Map();
  for (let i = 0; i + 2 < toks.length; i++) {
    if (!(isId(toks[i], 'enum') && isId(toks[i + 1]) && isP(toks[i + 2], '{'))) continue;
    const close = matchClose(toks, i + 2, file);
    const members = [];
    let next = 0;
    for (const part of splitTop(toks, i + 3, close, file)) {
      if (!isId(part[0])) continue;
      if (isP(part[1], '=')) {
        const lit = literalValue(part.slice(2));
        if (!lit || typeof lit.v !== 'number') break; // not a plain counting enum: stop reading it
        next = lit.v;
      }
      members.push([part[0].v, next++]);
    }
    enums.set(toks[i + 1].v, members);
    i = close;
  }
  return enums;
}

/** Function definitions NAME(...) { body }: name -> {params, body} (the last definition wins). */
function readFunctions(toks, file) {
  const fns = new Map();
  for (let i = 1; i + 1 < toks.length; i++) {
    if (
      !isId(toks[i]) ||
      !isP(toks[i + 1], '(') ||
      !(isId(toks[i - 1]) || isP(toks[i - 1], '*') || isP(toks[i - 1], '&'))
    )
      continue;
    const pclose = matchClose(toks, i + 1, file);
    let b = pclose + 1;
    if (isId(toks[b], 'const')) b++;
    if (!isP(toks[b], '{')) continue;
    const bclose = matchClose(toks, b, file);
    fns.set(toks[i].v, { params: toks.slice(i + 2, pclose), body: toks.slice(b + 1, bclose) });
    i = bclose;
  }
  return fns;
}

function readGgmlTypeNames(toks) {
  const names = {};
  for (let i = 0; i + 7 < toks.length; i++) {
    if (
      isP(toks[i], '[') &&
      isId(toks[i + 1]) &&
      toks[i + 1].v.startsWith('GGML_TYPE_') &&
      isP(toks[i + 2], ']') &&
      isP(toks[i + 3], '=') &&
      isP(toks[i + 4], '{')
    ) {
      for (let j = i + 5; j < i + 40 && j + 3 < toks.length; j++) {
        if (
          isP(toks[j], '.') &&
          isId(toks[j + 1], 'type_name') &&
          isP(toks[j + 2], '=') &&
          toks[j + 3].t === 'str'
        ) {
          names[toks[i + 1].v] = toks[j + 3].v;
          break;
        }
        if (isP(toks[j], '}')) break;
      }
    }
  }
  return names;
}

// ---------------------------------------------------------------------------------------------
// printf rendering of a help format string with resolved arguments

const UNRESOLVED = '\u0000?\u0000';

function formatValue(spec, conv, val) {
  if (val === undefined || val === null) return UNRESOLVED;
  if (conv === 's') return typeof val === 'string' ? val : UNRESOLVED;
  if (typeof val === 'boolean') val = val ? 1 : 0;
  if (typeof val !== 'number') return UNRESOLVED;
  const prec = /\.(\d+)/.exec(spec);
  if ('di'.includes(conv)) return String(Math.trunc(val));
  if (conv === 'u') return String(Math.trunc(val) >>> 0);
  if (conv === 'f') return val.toFixed(prec ? Number(prec[1]) : 6);
  if (conv === 'x') return (Math.trunc(val) >>> 0).toString(16);
  if (conv === 'g' || conv === 'e')
    return conv === 'g' ? formatG(val, prec ? Number(prec[1]) : 6) : UNRESOLVED;
  return UNRESOLVED;
}

/** C's %.Pg */
function formatG(v, p) {
  if (p === 0) p = 1;
  if (v === 0) return '0';
  const cExp = (e) => e.replace(/e([+-])(\d)$/, 'e$10$2');
  const [mant, ex] = v.toExponential(p - 1).split('e');
  const x = Number(ex);
  const strip = (m) => (m.includes('.') ? m.replace(/\.?0+$/, '') : m);
  if (x < -4 || x >= p) return cExp(`${strip(mant)}e${x < 0 ? '-' : '+'}${Math.abs(x)}`);
  return strip(v.toFixed(p - 1 - x));
}

function renderFormat(fmt, values) {
  let k = 0;
  return fmt.replace(
    /%([-+ #0]*\d*(?:\.\d+)?)(hh|h|ll|l|z|j|t|L)?([diuxXfFgGeEsc%])/g,
    (whole, spec, _len, conv) => {
      if (conv === '%') return '%';
      return formatValue(spec, conv.toLowerCase(), values[k++]);
    },
  );
}

// ---------------------------------------------------------------------------------------------
// the extractor

function extract(opts) {
  const dir = resolve(opts.dir);
  if (!existsSync(dir)) fail(`${dir}: no such directory`);
  const readSrc = (rel) => {
    if (opts.ref) {
      try {
        return git(dir, 'show', `${opts.ref}:${rel}`);
      } catch {
        fail(`${dir}: no ${rel} at ${opts.ref}`);
      }
    }
    const p = join(dir, rel);
    if (!existsSync(p)) fail(`${p}: not found (is ${dir} a llama.cpp checkout?)`);
    return readFileSync(p, 'utf8');
  };

  // --- git facts
  const ref = opts.ref ?? 'HEAD';
  let commit, date, subject;
  try {
    [commit, date, subject] = git(dir, 'log', '-1', '--format=%H%n%cI%n%s', ref).split('\n');
  } catch {
    fail(`${dir}: cannot read the commit of ${ref} (a git checkout is needed to name the source)`);
  }
  let tag = opts.tag;
  if (!tag && opts.ref && git(dir, 'tag', '-l', opts.ref).trim() === opts.ref) tag = opts.ref;
  if (!tag) {
    try {
      tag = git(dir, 'describe', '--tags', '--exact-match', ref).trim();
    } catch {
      fail(`${dir}: ${ref} is not a tag; give --tag`);
    }
  }

  const argSrc = readSrc(FILES.arg);
  const argToks = tokenize(argSrc, FILES.arg);
  // the raw text's count of `add_opt(`, comments and string literals included: a cross-check
  const addOptInText = (argSrc.match(/\badd_opt\s*\(/g) ?? []).length;
  const argHToks = tokenize(readSrc(FILES.argH), FILES.argH);
  const commonToks = tokenize(readSrc(FILES.common), FILES.common);
  const structs = readStructs(commonToks, FILES.common);
  const nameFns = readNameFunctions(tokenize(readSrc(FILES.llama), FILES.llama), FILES.llama);
  const ggmlNames = readGgmlTypeNames(tokenize(readSrc(FILES.ggml), FILES.ggml));
  nameFns.set('ggml_type_name', ggmlNames);
  const specToks = tokenize(readSrc(FILES.spec), FILES.spec);
  for (const [k, v] of readNameFunctions(specToks, FILES.spec)) nameFns.set(k, v);
  const specFns = readFunctions(specToks, FILES.spec);
  const enums = readEnums(commonToks, FILES.common);

  /** JOIN(list): a function that joins NAME_FN(list[i]) with a literal separator -> [nameFn, sep]. */
  const joinFn = (name) => {
    const f = specFns.get(name);
    if (!f) return null;
    const fn = f.body.find((t, k) => isId(t) && nameFns.has(t.v) && isP(f.body[k + 1], '('));
    const sep = f.body.find((t, k) => t.t === 'str' && isP(f.body[k - 1], '+='));
    return fn && sep ? [nameFns.get(fn.v), sep.v] : null;
  };
  /** A zero-argument function returning the names of every member of an enum below its _COUNT, joined. */
  const allNamesFn = (name, where) => {
    const f = specFns.get(name) ?? fail(`${where}: ${name}() not found in ${FILES.spec}`);
    const count = f.body.find((t) => isId(t) && /_COUNT$/.test(t.v));
    const join = f.body.map((t) => (isId(t) ? joinFn(t.v) : null)).find(Boolean);
    const en = count && [...enums.values()].find((m) => m.some(([e]) => e === count.v));
    if (!count || !join || !en)
      fail(
        `${where}: ${name}() is not 'every ${count?.v ?? 'ENUM_COUNT'} member by name, joined'; read it by hand`,
      );
    const limit = en.find(([e]) => e === count.v)[1];
    const names = [];
    for (let v = 0; v < limit; v++) {
      const member = en.find(([, x]) => x === v) ?? fail(`${where}: enum ${count.v} has no member ${v}`);
      names.push(join[0][member[0]] ?? fail(`${where}: no name for ${member[0]}`));
    }
    return names.join(join[1]);
  };
  if (!structs.has('common_params')) fail(`${FILES.common}: no struct common_params`);
  if (!ggmlNames.GGML_TYPE_F16) fail(`${FILES.ggml}: no type_traits names read`);

  // --- arg.h: the default example set of a common_arg
  const argStruct = readStructs(argHToks, FILES.argH).get('common_arg');
  if (!argStruct) fail(`${FILES.argH}: no struct common_arg`);
  const exInit = argStruct.get('examples')?.init;
  if (!exInit || !isP(exInit[0], '{')) fail(`${FILES.argH}: common_arg::examples has no initializer`);
  const defaultExamples = exInit.filter((t) => isId(t)).map((t) => t.v);
  const exclInit = argStruct.get('excludes')?.init;
  const defaultExcludes = exclInit ? exclInit.filter((t) => isId(t)).map((t) => t.v) : [];

  // --- arg.cpp: the function
  let fnStart = -1;
  for (let i = 0; i + 2 < argToks.length; i++) {
    if (isId(argToks[i], 'common_params_parser_init') && isP(argToks[i + 1], '(')) {
      const pclose = matchClose(argToks, i + 1, FILES.arg);
      if (isP(argToks[pclose + 1], '{')) {
        fnStart = pclose + 1;
        break;
      }
    }
  }
  if (fnStart < 0) fail(`${FILES.arg}: no definition of common_params_parser_init`);
  const fnEnd = matchClose(argToks, fnStart, FILES.arg);

  // every add_opt( in the file, and the same count from the raw text with comments and literals blanked
  const addOptCalls = [];
  for (let i = 0; i + 1 < argToks.length; i++)
    if (isId(argToks[i], 'add_opt') && isP(argToks[i + 1], '(')) addOptCalls.push(i);
  const outside = addOptCalls.filter((i) => i < fnStart || i > fnEnd);
  if (outside.length)
    fail(`${FILES.arg}:${argToks[outside[0]].line}: add_opt( outside common_params_parser_init`);

  // the add_opt lambda: the filter that decides which options a program gets
  const lambdaAt = argToks.findIndex(
    (t, i) => i > fnStart && i < fnEnd && isId(t, 'add_opt') && isP(argToks[i + 1], '='),
  );
  if (lambdaAt < 0)
    fail(`${FILES.arg}: no 'auto add_opt = [&](common_arg arg) {...}' in common_params_parser_init`);
  {
    const lb = argToks.findIndex((t, i) => i > lambdaAt && isP(t, '{'));
    const body = text(argToks.slice(lb, matchClose(argToks, lb, FILES.arg) + 1));
    for (const need of [
      'arg.in_example(ex)',
      'arg.in_example(LLAMA_EXAMPLE_COMMON)',
      '!arg.is_exclude(ex)',
      'ex != LLAMA_EXAMPLE_DOWNLOAD',
    ]) {
      if (!body.includes(need))
        fail(
          `${FILES.arg}:${argToks[lambdaAt].line}: the add_opt filter no longer has '${need}'; review the rule for which options llama-server gets`,
        );
    }
  }

  // static std::initializer_list<enum llama_example> NAME = { ... };
  const exampleLists = new Map();
  for (let i = 0; i + 2 < fnStart; i++) {
    if (isId(argToks[i]) && isP(argToks[i + 1], '=') && isP(argToks[i + 2], '{')) {
      const close = matchClose(argToks, i + 2, FILES.arg);
      const inner = argToks.slice(i + 3, close);
      if (inner.length && inner.every((t) => (isId(t) && t.v.startsWith('LLAMA_EXAMPLE_')) || isP(t, ',')))
        exampleLists.set(
          argToks[i].v,
          inner.filter((t) => isId(t)).map((t) => t.v),
        );
    }
  }
  // const std::vector<ggml_type> NAME = { GGML_TYPE_... };
  const ggmlTypeLists = new Map();
  for (let i = 0; i + 2 < fnStart; i++) {
    if (isId(argToks[i]) && isP(argToks[i + 1], '=') && isP(argToks[i + 2], '{')) {
      const close = matchClose(argToks, i + 2, FILES.arg);
      const inner = argToks.slice(i + 3, close);
      if (inner.length && inner.every((t) => (isId(t) && t.v.startsWith('GGML_TYPE_')) || isP(t, ',')))
        ggmlTypeLists.set(
          argToks[i].v,
          inner.filter((t) => isId(t)).map((t) => t.v),
        );
    }
  }
  // static std::string FN() { ... for (... : LIST) { ... ggml_type_name(...) ... } }: a list of type names
  const typeListFns = new Map();
  for (let i = 0; i + 3 < fnStart; i++) {
    if (
      isId(argToks[i]) &&
      isP(argToks[i + 1], '(') &&
      isP(argToks[i + 2], ')') &&
      isP(argToks[i + 3], '{') &&
      isId(argToks[i - 1], 'string')
    ) {
      const close = matchClose(argToks, i + 3, FILES.arg);
      const body = argToks.slice(i + 4, close);
      const colon = body.findIndex(
        (t, k) =>
          isP(t, ':') && isId(body[k + 1]) && ggmlTypeLists.has(body[k + 1].v) && isP(body[k + 2], ')'),
      );
      if (
        colon >= 0 &&
        body.some((t) => isId(t, 'ggml_type_name')) &&
        body.some((t) => t.t === 'str' && t.v === ', ')
      ) {
        typeListFns.set(
          argToks[i].v,
          ggmlTypeLists
            .get(body[colon + 1].v)
            .map((e) => ggmlNames[e] ?? fail(`${FILES.ggml}: no type name for ${e}`)),
        );
      }
    }
  }
  // LLAMA_ARG_NO_ env for negatable options (common_arg::get_env)
  const argText = argToks.map((t) => (t.t === 'str' ? JSON.stringify(t.v) : t.v)).join(' ');
  const negEnvRule = /string_replace_all \( neg_env , "LLAMA_ARG_" , "LLAMA_ARG_NO_" \)/.test(argText);
  // the value words is_truthy / is_falsey / is_autoy accept
  const predicateWords = {};
  for (const fn of ['is_truthy', 'is_falsey', 'is_autoy']) {
    const at = argToks.findIndex(
      (t, i) => isId(t, fn) && isP(argToks[i - 1], '::') && isP(argToks[i + 1], '('),
    );
    if (at < 0) continue;
    const b = argToks.findIndex((t, i) => i > at && isP(t, '{'));
    const body = argToks.slice(b, matchClose(argToks, b, FILES.arg));
    predicateWords[fn] = body.filter((t, k) => t.t === 'str' && isP(body[k - 1], '==')).map((t) => t.v);
  }

  // --- the body: control flow (if / else if / else around add_opt) and per-example defaults
  const exampleDefaults = {};
  const options = [];
  let helpEx = null; // the program whose own defaults fill the help being read
  const stack = []; // { conds: [text, value][] in force inside the block, chain: the if/else-if conditions so far }
  let lastIf = null; // the condition chain of an if-block just closed
  const negate = ([c, v]) => [`!(${c})`, v === null ? null : !v];
  const parseErrors = [];
  for (let i = fnStart + 1; i < fnEnd; i++) {
    const t = argToks[i];
    if (isId(t, 'add_opt') && isP(argToks[i + 1], '(')) {
      const close = matchClose(argToks, i + 1, FILES.arg);
      const conds = stack.flatMap((s) => s.conds);
      try {
        options.push(parseOption(argToks.slice(i + 2, close), conds, t.line));
      } catch (e) {
        if (!(e instanceof ExtractError)) throw e;
        parseErrors.push(e.message);
      }
      i = close;
      lastIf = null;
      continue;
    }
    if (isId(t, 'if') && isP(argToks[i + 1], '(')) {
      const cclose = matchClose(argToks, i + 1, FILES.arg);
      const cond = argToks.slice(i + 2, cclose);
      const chain = isId(argToks[i - 1], 'else') && lastIf ? lastIf : [];
      if (!isP(argToks[cclose + 1], '{')) {
        if (isId(argToks[cclose + 1], 'add_opt'))
          fail(`${FILES.arg}:${t.line}: add_opt under an if without braces`);
        lastIf = null;
        i = cclose;
        continue;
      }
      const own = [text(cond), evalCond(cond)];
      stack.push({ conds: [...chain.map(negate), own], chain: [...chain, own] });
      i = cclose + 1;
      continue;
    }
    if (isId(t, 'else') && isP(argToks[i + 1], '{')) {
      if (!lastIf) fail(`${FILES.arg}:${t.line}: else without a preceding if-block`);
      stack.push({ conds: lastIf.map(negate), chain: null });
      lastIf = null;
      i += 1;
      continue;
    }
    if (isId(t, 'else') && isId(argToks[i + 1], 'if')) continue;
    if (isP(t, '{')) {
      stack.push({ conds: [], chain: null });
      lastIf = null;
      continue;
    }
    if (isP(t, '}')) {
      const top = stack.pop();
      if (!top) fail(`${FILES.arg}:${t.line}: unbalanced '}'`);
      lastIf = top.chain;
      continue;
    }
    // params.PATH = LITERAL; inside an `ex == LLAMA_EXAMPLE_X` block: that program's own default
    if (isId(t, 'params') && isP(argToks[i + 1], '.')) {
      let j = i + 1;
      const path = [];
      while (isP(argToks[j], '.') && isId(argToks[j + 1])) {
        path.push(argToks[j + 1].v);
        j += 2;
      }
      if (isP(argToks[j], '=')) {
        const semi = argToks.findIndex((x, k) => k > j && isP(x, ';'));
        const lit = literalValue(argToks.slice(j + 1, semi));
        const exConds = stack.flatMap((s) => s.conds).filter(([c]) => /^ex == LLAMA_EXAMPLE_\w+$/.test(c));
        if (lit && 'v' in lit && exConds.length === 1) {
          const ex = exConds[0][0].slice('ex == '.length);
          (exampleDefaults[ex] ??= {})[path.join('.')] = lit.v;
        }
        i = semi;
      }
      lastIf = null;
      continue;
    }
    if (!isId(t, 'else')) lastIf = null;
  }
  if (stack.length) fail(`${FILES.arg}: unbalanced braces in common_params_parser_init`);

  // --- preset-only options: args.push_back(common_arg(...)) in common_params_add_preset_options
  const presetOptions = [];
  const presetFn = argToks.findIndex(
    (t, i) =>
      isId(t, 'common_params_add_preset_options') &&
      isP(argToks[i + 1], '(') &&
      isP(argToks[matchClose(argToks, i + 1, FILES.arg) + 1], '{'),
  );
  let presetFound = 0;
  if (presetFn >= 0) {
    const b = matchClose(argToks, presetFn + 1, FILES.arg) + 1;
    const e = matchClose(argToks, b, FILES.arg);
    for (let i = b; i < e; i++) {
      if (isId(argToks[i], 'push_back') && isP(argToks[i + 1], '(') && isId(argToks[i + 2], 'common_arg')) {
        presetFound++;
        const close = matchClose(argToks, i + 1, FILES.arg);
        try {
          presetOptions.push(parseOption(argToks.slice(i + 2, close), [], argToks[i].line));
        } catch (err) {
          if (!(err instanceof ExtractError)) throw err;
          parseErrors.push(err.message);
        }
        i = close;
      }
    }
  }

  if (parseErrors.length) {
    fail(
      `${parseErrors.length} of ${addOptCalls.length + presetFound} option definitions could not be read:\n  ${parseErrors.join('\n  ')}`,
    );
  }
  if (options.length !== addOptCalls.length)
    fail(`found ${addOptCalls.length} add_opt calls but read ${options.length}`);
  if (addOptInText < addOptCalls.length)
    fail(`the tokenizer found ${addOptCalls.length} add_opt calls, the text only ${addOptInText}`);
  // llama-server must see every name at most once (else a condition was misread)
  const seenName = new Map();
  for (const o of options.filter((x) => x.server)) {
    for (const n of [...o.names, ...(o.negatives ?? [])]) {
      if (seenName.has(n))
        fail(
          `${n} is defined twice for llama-server (${seenName.get(n)} and ${o.names.join('/')}): an if/else around add_opt was misread`,
        );
      seenName.set(n, o.names.join('/'));
    }
  }

  // ---------------------------------------------------------------------------------------------
  function parseOption(call, conds, line) {
    const where = `${FILES.arg}:${line}`;
    if (!isId(call[0], 'common_arg') || !isP(call[1], '('))
      fail(`${where}: add_opt argument is not common_arg(...)`);
    const ctorClose = matchClose(call, 1, where);
    const args = splitTop(call, 2, ctorClose, where);
    const braceList = (a) => {
      if (!isP(a[0], '{') || !isP(a[a.length - 1], '}') || matchClose(a, 0, where) !== a.length - 1)
        return null;
      const inner = a.slice(1, -1);
      const items = splitTop(inner, 0, inner.length, where);
      return items.every((x) => x.length === 1 && x[0].t === 'str')
        ? items.map((x) => x[0].v)
        : fail(`${where}: name list is not string literals: ${text(a)}`);
    };
    const names = braceList(args[0]);
    if (!names || names.length === 0)
      fail(`${where}: first argument of common_arg is not a list of names: ${text(args[0] ?? [])}`);
    let negatives = null;
    let value = null;
    let value2 = null;
    let valueList = false; // the placeholder is a computed comma-separated list of every accepted name
    let helpToks;
    let handlerToks;
    let shape;
    if (args.length === 3) {
      [, helpToks, handlerToks] = args;
      shape = 'void';
    } else if (args.length === 4 && isP(args[1][0], '{')) {
      negatives = braceList(args[1]);
      [, , helpToks, handlerToks] = args;
      shape = 'bool';
    } else if (args.length === 4) {
      value = stringConcat(args[1]);
      if (
        value === null &&
        args[1].length === 3 &&
        isId(args[1][0]) &&
        isP(args[1][1], '(') &&
        isP(args[1][2], ')')
      ) {
        value = allNamesFn(args[1][0].v, where);
        valueList = true;
      }
      if (value === null) fail(`${where}: value placeholder is not a string literal: ${text(args[1])}`);
      [, , helpToks, handlerToks] = args;
      shape = 'int|string';
    } else if (args.length === 5) {
      value = stringConcat(args[1]);
      value2 = stringConcat(args[2]);
      if (value === null || value2 === null) fail(`${where}: value placeholders are not string literals`);
      [, , , helpToks, handlerToks] = args;
      shape = 'string,string';
    } else fail(`${where}: common_arg with ${args.length} arguments matches no constructor of common/arg.h`);

    // handler lambda
    if (!isP(handlerToks[0], '['))
      fail(`${where}: handler is not a lambda: ${text(handlerToks.slice(0, 6))}`);
    const capClose = matchClose(handlerToks, 0, where);
    if (!isP(handlerToks[capClose + 1], '(')) fail(`${where}: handler lambda has no parameter list`);
    const parClose = matchClose(handlerToks, capClose + 1, where);
    const bodyOpen = handlerToks.findIndex((x, k) => k > parClose && isP(x, '{'));
    if (bodyOpen < 0 || matchClose(handlerToks, bodyOpen, where) !== handlerToks.length - 1)
      fail(`${where}: handler lambda body not understood`);
    const params = splitTop(handlerToks, capClose + 2, parClose, where);
    if (!params[0]?.some((x) => isId(x, 'common_params')))
      fail(`${where}: handler's first parameter is not common_params &`);
    const valueParams = params.slice(1).map((p) => {
      const ids = p.filter((x) => isId(x)).map((x) => x.v);
      const type = ids.includes('bool')
        ? 'bool'
        : ids.includes('int')
          ? 'int'
          : ids.includes('string')
            ? 'string'
            : fail(`${where}: handler parameter type not understood: ${text(p)}`);
      const name =
        isId(p[p.length - 1]) && !['bool', 'int', 'string'].includes(p[p.length - 1].v)
          ? p[p.length - 1].v
          : null;
      return { type, name };
    });
    const handler = valueParams.length === 0 ? 'void' : valueParams.map((p) => p.type).join(',');
    const ok = {
      void: ['void'],
      bool: ['bool'],
      'int|string': ['int', 'string'],
      'string,string': ['string,string'],
    }[shape];
    if (!ok.includes(handler)) fail(`${where}: handler (${handler}) does not fit the constructor (${shape})`);
    const body = handlerToks.slice(bodyOpen + 1, -1);
    const pname = valueParams[0]?.name;

    // kind
    let kind = handler === 'void' || handler === 'bool' ? 'switch' : handler === 'int' ? 'int' : 'string';
    if (handler === 'string' && pname) {
      const conv = body.findIndex(
        (x, k) =>
          isId(x) &&
          /^sto(f|d|ld|i|l|ul|ll|ull)$/.test(x.v) &&
          isP(body[k + 1], '(') &&
          isId(body[k + 2], pname) &&
          isP(body[k + 3], ')'),
      );
      if (conv >= 0) kind = /^sto(f|d|ld)$/.test(body[conv].v) ? 'float' : 'int';
    }

    // values the handler compares its argument with
    let accepts = [];
    if (pname && (handler === 'string' || handler === 'int')) {
      for (let k = 0; k < body.length; k++) {
        if (isId(body[k], pname) && isP(body[k + 1], '==') && body[k + 2]?.t === 'str')
          accepts.push(body[k + 2].v);
        if (body[k].t === 'str' && isP(body[k + 1], '==') && isId(body[k + 2], pname))
          accepts.push(body[k].v);
        if (
          isId(body[k]) &&
          body[k].v in predicateWords &&
          isP(body[k + 1], '(') &&
          isId(body[k + 2], pname) &&
          isP(body[k + 3], ')')
        )
          accepts.push(...predicateWords[body[k].v]);
      }
      accepts = [...new Set(accepts)];
    }

    // chain
    let examples = [...defaultExamples];
    let excludes = [...defaultExcludes];
    let env = null;
    const flags = {};
    let k = ctorClose + 1;
    while (k < call.length) {
      if (!isP(call[k], '.') || !isId(call[k + 1]) || !isP(call[k + 2], '('))
        fail(`${where}: unexpected ${text(call.slice(k, k + 4))} after common_arg(...)`);
      const m = call[k + 1].v;
      const close = matchClose(call, k + 2, where);
      const a = call.slice(k + 3, close);
      const exList = () => {
        if (a.length === 1 && isId(a[0]))
          return exampleLists.get(a[0].v) ?? fail(`${where}: ${m}(${a[0].v}): no such list of examples`);
        if (!isP(a[0], '{')) fail(`${where}: ${m} argument not understood: ${text(a)}`);
        const ids = a.slice(1, -1).filter((x) => !isP(x, ','));
        if (!ids.every((x) => isId(x) && x.v.startsWith('LLAMA_EXAMPLE_')))
          fail(`${where}: ${m} argument not understood: ${text(a)}`);
        return ids.map((x) => x.v);
      };
      if (m === 'set_examples') examples = exList();
      else if (m === 'set_excludes') excludes = exList();
      else if (m === 'set_env')
        env =
          stringConcat(a) ??
          (a.length === 1 && isId(a[0])
            ? `#${a[0].v}`
            : fail(`${where}: set_env argument not understood: ${text(a)}`));
      else if (m === 'set_sampling') flags.sampling = true;
      else if (m === 'set_spec') flags.spec = true;
      else if (m === 'set_preset_only') flags.presetOnly = true;
      else fail(`${where}: unknown method .${m}()`);
      k = close + 1;
    }
    if (env && env.startsWith('#')) {
      // a macro (preset-only pseudo env); its #define is skipped by the tokenizer, so read it from arg.h
      const macro = env.slice(1);
      const m = new RegExp(`#define\\s+${macro}\\s+"([^"]*)"`).exec(readSrc(FILES.argH));
      env = m ? m[1] : fail(`${where}: set_env(${macro}): macro not found in ${FILES.argH}`);
    }

    // applies to llama-server: the add_opt filter, evaluated for ex = LLAMA_EXAMPLE_SERVER
    const condValue = conds.reduce(
      (acc, [, v]) => (acc === false || v === false ? false : acc === null || v === null ? null : true),
      true,
    );
    const inServerSet = examples.includes(SERVER) || examples.includes('LLAMA_EXAMPLE_COMMON');
    const server = inServerSet && !excludes.includes(SERVER) && condValue !== false && !flags.presetOnly;

    // help, and the default it prints: for llama-server's options with llama-server's own defaults
    // (exampleDefaults), for the others with common.h's
    helpEx = server || flags.presetOnly ? SERVER : null;
    const help = parseHelp(helpToks, where);

    // choices: from the value placeholder, else from the help text
    let choices = null;
    let choicesFrom = null;
    const ph = value ?? '';
    const phm =
      /^\[([\w.-]+(?:\|[\w.-]+)+)\]$/.exec(ph) ??
      /^<([\w.-]+(?:\|[\w.-]+)+)>$/.exec(ph) ??
      /^([\w.-]+(?:\|[\w.-]+)+)$/.exec(ph);
    const phb = /^\{([\w.-]+(?:,[\w.-]+)+)\}$/.exec(ph);
    if (valueList) [choices, choicesFrom] = [value.split(','), 'value'];
    else if (phm) [choices, choicesFrom] = [phm[1].split('|'), 'value'];
    else if (phb) [choices, choicesFrom] = [phb[1].split(','), 'value'];
    else if (help.allowed) [choices, choicesFrom] = [help.allowed, 'help'];
    else if (help.bullets) [choices, choicesFrom] = [help.bullets, 'help'];

    const o = { names };
    if (negatives) o.negatives = negatives;
    o.value = value;
    if (value2 !== null) o.value2 = value2;
    o.kind = kind;
    o.handler = handler;
    if (choices) {
      o.choices = choices;
      o.choicesFrom = choicesFrom;
    }
    if (accepts.length) o.accepts = accepts;
    if (help.default !== undefined) o.default = help.default;
    o.env = env;
    if (env && negatives && negEnvRule && env.startsWith('LLAMA_ARG_'))
      o.envNegative = env.replace('LLAMA_ARG_', 'LLAMA_ARG_NO_');
    if (!flags.presetOnly) {
      o.examples = examples;
      if (excludes.length) o.excludes = excludes;
      o.server = server;
    }
    if (conds.length) o.condition = conds.map(([c]) => c).join(' && ');
    if (/\bDEPRECATED\b/.test(help.fmt)) o.deprecated = true;
    if (body.some((x, k) => isId(x, 'arg_removed') && isP(body[k + 1], '('))) o.removed = true;
    if (flags.sampling) o.sampling = true;
    if (flags.spec) o.spec = true;
    o.help = help.firstLine;
    return o;
  }

  function parseHelp(toks, where) {
    let fmt = stringConcat(toks);
    let fargs = [];
    const q0 = toks.findIndex((x) => isP(x, '?'));
    if (fmt === null && q0 > 0 && !isId(toks[0], 'string_format')) {
      // cond ? "a" : "b" on the program (evaluated for llama-server)
      const c = toks.findIndex((x, k) => k > q0 && isP(x, ':'));
      const v = evalCond(toks.slice(0, q0));
      if (c < 0 || v === null) fail(`${where}: help not understood: ${text(toks)}`);
      fmt = stringConcat(v ? toks.slice(q0 + 1, c) : toks.slice(c + 1));
      if (fmt === null) fail(`${where}: help not understood: ${text(toks)}`);
    }
    if (fmt === null) {
      if (
        !isId(toks[0], 'string_format') ||
        !isP(toks[1], '(') ||
        matchClose(toks, 1, where) !== toks.length - 1
      )
        fail(`${where}: help is neither string literals nor string_format(...): ${text(toks.slice(0, 8))}`);
      const parts = splitTop(toks, 2, toks.length - 1, where);
      fmt = stringConcat(parts[0]);
      if (fmt === null) {
        // cond ? "a" : "b" on the program (evaluated for llama-server)
        const q = parts[0].findIndex((x) => isP(x, '?'));
        const c = parts[0].findIndex((x) => isP(x, ':'));
        if (q < 0 || c < q) fail(`${where}: help format not understood: ${text(parts[0])}`);
        const v = evalCond(parts[0].slice(0, q));
        if (v === null) fail(`${where}: help format depends on ${text(parts[0].slice(0, q))}`);
        fmt = stringConcat(v ? parts[0].slice(q + 1, c) : parts[0].slice(c + 1));
        if (fmt === null) fail(`${where}: help format not understood: ${text(parts[0])}`);
      }
      fargs = parts.slice(1);
    }
    const values = fargs.map((a) => resolveArg(a));
    const rendered = renderFormat(
      fmt,
      values.map((v) => (v && 'list' in v ? v.list.join(', ') : v?.v)),
    );
    // first line, without markdown links, at most HELP_MAX characters (cut at a word)
    let first = fmt
      .split('\n')[0]
      .replace(/\[\(more info\)\]\([^)]*\)/g, '')
      .replace(/\s+/g, ' ')
      .trim();
    if (first.length > HELP_MAX)
      first =
        first
          .slice(0, Math.max(first.lastIndexOf(' ', HELP_MAX - 2), HELP_MAX / 2))
          .replace(/[\s,;:(]+$/, '') + ' \u2026';
    const out = { firstLine: first, fmt };
    // choices listed in the help: "allowed values: %s" filled from a list, or "one of:" bullets
    const allowedAt = fmt.search(/allowed values: %s/);
    if (allowedAt >= 0) {
      const idx = (fmt.slice(0, allowedAt).match(/%[^%]/g) ?? []).length;
      if (values[idx] && 'list' in values[idx]) out.allowed = values[idx].list;
    }
    // two or more consecutive "- word: ..." lines: the values the option takes
    const bullets = /(?:^|\n)((?:- [\w.+-]+(?: \(default\))?: .*(?:\n|$)){2,})/.exec(rendered);
    if (bullets) out.bullets = [...bullets[1].matchAll(/^- ([\w.+-]+)/gm)].map((m) => m[1]);
    const bulletDefault = /^- ([\w.+-]+) \(default\):/m.exec(rendered);
    const dm = /\bdefault: (?:'([^']*)'|"([^"]*)"|([^,;)\n]*))/.exec(rendered);
    const d = bulletDefault ? bulletDefault[1] : dm ? (dm[1] ?? dm[2] ?? dm[3]).trim() : undefined;
    if (d !== undefined && !d.includes(UNRESOLVED)) out.default = d;
    return out;
  }

  /** A help format argument's value: {v} (number, bool, string) or {list}; null if not readable statically. */
  function resolveArg(a) {
    let toks = a;
    // (unsigned) x, (int) x
    while (isP(toks[0], '(') && isId(toks[1]) && isP(toks[2], ')') && toks.length > 3) toks = toks.slice(3);
    const s = stringConcat(toks);
    if (s !== null) return { v: s };
    // c ? "a" : "b"
    const q = toks.findIndex((x) => isP(x, '?'));
    if (q > 0) {
      const c = toks.findIndex((x, k) => k > q && isP(x, ':'));
      let condToks = toks.slice(0, q);
      let neg = false;
      while (isP(condToks[0], '!')) {
        neg = !neg;
        condToks = condToks.slice(1);
      }
      const cmp = condToks.findIndex((x) => x.t === 'p' && ['==', '!=', '<', '>', '<=', '>='].includes(x.v));
      let cv;
      if (cmp > 0) {
        const l = resolveArg(condToks.slice(0, cmp));
        const r = literalValue(condToks.slice(cmp + 1)) ?? resolveArg(condToks.slice(cmp + 1));
        if (!l || !r || !('v' in l) || !('v' in r)) return null;
        const op = condToks[cmp].v;
        cv = {
          v:
            op === '=='
              ? l.v === r.v
              : op === '!='
                ? l.v !== r.v
                : op === '<'
                  ? l.v < r.v
                  : op === '>'
                    ? l.v > r.v
                    : op === '<='
                      ? l.v <= r.v
                      : l.v >= r.v,
        };
      } else cv = resolveArg(condToks);
      if (!cv || (typeof cv.v !== 'boolean' && typeof cv.v !== 'number')) return null;
      const truth = Boolean(cv.v) !== neg;
      return resolveArg(truth ? toks.slice(q + 1, c) : toks.slice(c + 1));
    }
    // FN().c_str() for a list of type names
    if (isId(toks[0]) && typeListFns.has(toks[0].v) && isP(toks[1], '(') && isP(toks[2], ')'))
      return { list: typeListFns.get(toks[0].v) };
    // NAME_FN(params.x)
    if (isId(toks[0]) && nameFns.has(toks[0].v) && isP(toks[1], '(') && isP(toks[toks.length - 1], ')')) {
      const inner = resolveParams(toks.slice(2, -1));
      if (inner && 'enumConst' in inner) {
        const name = nameFns.get(toks[0].v)[inner.enumConst];
        return name === undefined ? null : { v: name };
      }
      return null;
    }
    // JOIN(params.x).c_str() where JOIN joins the names of a list of enum values
    if (isId(toks[0]) && joinFn(toks[0].v) && isP(toks[1], '(')) {
      const close = matchClose(toks, 1, 'help');
      const init = paramsMember(toks.slice(2, close));
      const [names, sep] = joinFn(toks[0].v);
      if (init && isP(init[0], '{')) {
        const items = init.slice(1, -1).filter((x) => !isP(x, ','));
        if (items.every((x) => isId(x) && x.v in names)) return { v: items.map((x) => names[x.v]).join(sep) };
      }
      return null;
    }
    // params.x.c_str()
    if (
      toks.length >= 4 &&
      isP(toks[toks.length - 4], '.') &&
      isId(toks[toks.length - 3], 'c_str') &&
      isP(toks[toks.length - 2], '(') &&
      isP(toks[toks.length - 1], ')')
    ) {
      const r = resolveParams(toks.slice(0, -4));
      return r && typeof r.v === 'string' ? r : null;
    }
    const r = resolveParams(toks);
    return r && 'v' in r ? r : null;
  }

  /** params.a.b.c: the initializer in common.h (or the program's own default); null if not a literal. */
  function resolveParams(toks) {
    if (!isId(toks[0], 'params')) return null;
    const path = [];
    for (let k = 1; k < toks.length; k += 2) {
      if (!isP(toks[k], '.') || !isId(toks[k + 1])) return null;
      path.push(toks[k + 1].v);
    }
    const key = path.join('.');
    if (helpEx && exampleDefaults[helpEx] && key in exampleDefaults[helpEx])
      return { v: exampleDefaults[helpEx][key] };
    const init = paramsMember(toks);
    return init ? literalValue(init) : null;
  }

  /** params.a.b.c: the initializer tokens of that member in common.h; null if none. */
  function paramsMember(toks) {
    if (!isId(toks[0], 'params')) return null;
    let st = structs.get('common_params');
    let m = null;
    for (let k = 1; k < toks.length; k += 2) {
      if (!isP(toks[k], '.') || !isId(toks[k + 1]) || !st) return null;
      m = st.get(toks[k + 1].v);
      if (!m) return null;
      st = structs.get(m.type);
    }
    return m?.init ?? null;
  }

  // ---------------------------------------------------------------------------------------------
  const serverOptions = options.filter((o) => o.server);

  // cross-check (a warning, not an error: the generated docs can lag arg.cpp): tools/server/README.md
  // holds llama-gen-docs' table of llama-server's options; compare its first names with ours
  let docsNote = null;
  try {
    const md = readSrc('tools/server/README.md');
    const a = md.indexOf('<!-- HELP_START -->');
    const b = md.indexOf('<!-- HELP_END -->');
    if (a >= 0 && b > a) {
      const docNames = [...md.slice(a, b).matchAll(/^\| `([^`\s,]+)[^`]*` \|/gm)]
        .map((m) => m[1])
        .filter((n) => n !== 'Argument');
      const ours = new Set(serverOptions.map((o) => o.names[0]));
      const theirs = new Set(docNames);
      const missing = docNames.filter((n) => !ours.has(n));
      const extra = [...ours].filter((n) => !theirs.has(n));
      docsNote =
        missing.length || extra.length
          ? `tools/server/README.md (llama-gen-docs) lists ${docNames.length} options; not in this table: ${missing.join(' ') || '-'}; not in the docs: ${extra.join(' ') || '-'}`
          : `tools/server/README.md (llama-gen-docs) lists the same ${docNames.length} options`;
    }
  } catch (e) {
    if (!(e instanceof ExtractError)) throw e;
  }
  const envs = new Set(options.flatMap((o) => [o.env, o.envNegative].filter(Boolean)));
  const serverEnvs = new Set(serverOptions.flatMap((o) => [o.env, o.envNegative].filter(Boolean)));
  const source = { repository: opts.repository, tag, commit, date, subject, files: Object.values(FILES) };
  if (opts.snapshot) source.snapshot = opts.snapshot;
  return {
    docsNote,
    llamaCppTag: tag,
    source,
    generator: GENERATOR,
    program: { name: 'llama-server', example: SERVER },
    counts: {
      addOptInText,
      addOptFound: addOptCalls.length,
      addOptParsed: options.length,
      options: options.length,
      serverOptions: serverOptions.length,
      envVars: envs.size,
      serverEnvVars: serverEnvs.size,
      presetOptions: presetOptions.length,
    },
    exampleDefaults,
    options,
    presetOptions,
  };
}

// ---------------------------------------------------------------------------------------------

function main() {
  let opts;
  try {
    opts = parseArgv(process.argv.slice(2));
    const { docsNote, ...table } = extract(opts);
    if (docsNote) process.stderr.write(`extract-llama-cpp-flags: ${docsNote}\n`);
    const json = JSON.stringify(table, null, 1) + '\n';
    const c = table.counts;
    const line = `llama.cpp ${table.llamaCppTag}: ${c.addOptFound} add_opt calls found (${c.addOptInText - c.addOptFound} more in comments), ${c.addOptParsed} parsed; ${c.serverOptions} apply to llama-server; ${c.envVars} env vars (${c.serverEnvVars} for llama-server); ${c.presetOptions} preset-only options; ${table.source.repository} @ ${table.source.commit} (${table.source.date}, ${table.source.subject})`;
    if (opts.stdout) {
      process.stdout.write(json);
      process.stderr.write(line + '\n');
      return;
    }
    const here = dirname(fileURLToPath(import.meta.url));
    const out = opts.out
      ? resolve(opts.out)
      : join(here, '..', '..', 'data', 'llama-cpp-flags', `${table.llamaCppTag}.json`);
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, json);
    process.stdout.write(`${line} -> ${out}\n`);
  } catch (e) {
    if (e instanceof ExtractError) {
      process.stderr.write(`extract-llama-cpp-flags: ${e.message}\n`);
      process.exit(1);
    }
    throw e;
  }
}

main();
