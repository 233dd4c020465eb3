#!/usr/bin/env node
/**
 * Reads Ollama's environment-variable table statically from one Ollama checkout (or one ref of a
 * clone) and writes data/ollama-env/<tag>.json. The table is the `AsMap()` literal of
 * envconfig/config.go (the list `ollama serve --help` prints), each entry with its description, the
 * type and default the accessor behind it gives, and the GOOS condition it is listed under. It also
 * records the variables config.go reads (its `Bool/BoolWithDefault/String/Uint/Uint64("KEY")`
 * accessors and `Var("KEY")` calls) that AsMap does not list, marked `listed: false`.
 *
 *   node scripts/ollama-env/extract-ollama-env.mjs OLLAMA_DIR [--ref REF] [--tag TAG]
 *        [--repository OWNER/NAME] [--out FILE | --stdout]
 *
 * OLLAMA_DIR is a work tree, or with --ref any clone (files read with `git show REF:path`). The tag
 * defaults to --ref when that is a tag, else to the tag at HEAD. A pre-release tag (-rc) is refused
 * unless --tag names it. No dependencies: Go is read with a small tokenizer; an AsMap entry of
 * another shape is an error (exit 1) that names its line, never a silent omission.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const GENERATOR = 'scripts/ollama-env/extract-ollama-env.mjs';
const FILE = 'envconfig/config.go';

class ExtractError extends Error {}
const fail = (msg) => {
  throw new ExtractError(msg);
};

function parseArgv(argv) {
  const opts = { dir: null, ref: null, tag: null, repository: 'ollama/ollama', out: null, stdout: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => (i + 1 < argv.length ? argv[++i] : fail(`${a} needs a value`));
    if (a === '--ref') opts.ref = next();
    else if (a === '--tag') opts.tag = next();
    else if (a === '--repository') opts.repository = next();
    else if (a === '--out') opts.out = next();
    else if (a === '--stdout') opts.stdout = true;
    else if (a.startsWith('-')) fail(`unknown option ${a}`);
    else if (opts.dir === null) opts.dir = a;
    else fail(`unexpected argument ${a}`);
  }
  if (!opts.dir)
    fail(
      'usage: extract-ollama-env.mjs OLLAMA_DIR [--ref REF] [--tag TAG] [--repository OWNER/NAME] [--out FILE | --stdout]',
    );
  return opts;
}

function git(dir, ...args) {
  return execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

// ---------------------------------------------------------------------------------------------
// Go tokenizer: identifiers, numbers, "interpreted" and `raw` strings (decoded), runes, punctuation;
// comments are kept apart (doc comments are looked up by line)

function tokenize(src) {
  const toks = [];
  const comments = new Map(); // line -> text of a // comment
  let i = 0;
  let line = 1;
  const n = src.length;
  while (i < n) {
    const c = src[i];
    if (c === '\n') {
      line++;
      i++;
      continue;
    }
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '/' && src[i + 1] === '/') {
      const end = src.indexOf('\n', i);
      const stop = end < 0 ? n : end;
      comments.set(line, src.slice(i + 2, stop).trim());
      i = stop;
      continue;
    }
    if (c === '/' && src[i + 1] === '*') {
      const end = src.indexOf('*/', i + 2);
      if (end < 0) fail(`${FILE}:${line}: unterminated comment`);
      for (let k = i; k < end; k++) if (src[k] === '\n') line++;
      i = end + 2;
      continue;
    }
    if (c === '`') {
      const end = src.indexOf('`', i + 1);
      if (end < 0) fail(`${FILE}:${line}: unterminated raw string`);
      const v = src.slice(i + 1, end);
      toks.push({ t: 'str', v, line });
      for (const ch of v) if (ch === '\n') line++;
      i = end + 1;
      continue;
    }
    if (c === '"' || c === "'") {
      let j = i + 1;
      let body = '';
      while (j < n && src[j] !== c) {
        if (src[j] === '\n') fail(`${FILE}:${line}: newline in literal`);
        if (src[j] === '\\') {
          body += src[j] + src[j + 1];
          j += 2;
          continue;
        }
        body += src[j++];
      }
      if (j >= n) fail(`${FILE}:${line}: unterminated literal`);
      let v;
      try {
        v = c === '"' ? JSON.parse(`"${body.replace(/\\'/g, "'")}"`) : body;
      } catch {
        fail(`${FILE}:${line}: string literal not understood: "${body}"`);
      }
      toks.push({ t: c === '"' ? 'str' : 'rune', v, line });
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
    if (/[0-9]/.test(c)) {
      let j = i + 1;
      while (j < n && /[0-9A-Za-z_.]/.test(src[j])) j++;
      toks.push({ t: 'num', v: src.slice(i, j), line });
      i = j;
      continue;
    }
    const two = src.slice(i, i + 2);
    const v = [':=', '==', '!=', '<=', '>=', '&&', '||', '<-', '++', '--', '+=', '-='].includes(two)
      ? two
      : c;
    toks.push({ t: 'p', v, line });
    i += v.length;
  }
  return { toks, comments };
}

const OPEN = { '(': ')', '[': ']', '{': '}' };
const isP = (t, v) => t && t.t === 'p' && t.v === v;
const isId = (t, v) => t && t.t === 'id' && (v === undefined || t.v === v);

function matchClose(toks, i) {
  const want = [OPEN[toks[i].v]];
  for (let j = i + 1; j < toks.length; j++) {
    const t = toks[j];
    if (t.t !== 'p') continue;
    if (OPEN[t.v]) want.push(OPEN[t.v]);
    else if (t.v === ')' || t.v === ']' || t.v === '}') {
      const w = want.pop();
      if (w !== t.v) fail(`${FILE}:${t.line}: '${t.v}' where '${w}' was expected`);
      if (want.length === 0) return j;
    }
  }
  fail(`${FILE}:${toks[i].line}: '${toks[i].v}' is never closed`);
}

function splitTop(toks, a, b) {
  const parts = [];
  let start = a;
  for (let j = a; j < b; j++) {
    if (toks[j].t === 'p' && OPEN[toks[j].v]) j = matchClose(toks, j);
    else if (isP(toks[j], ',')) {
      parts.push(toks.slice(start, j));
      start = j + 1;
    }
  }
  if (start < b) parts.push(toks.slice(start, b));
  return parts;
}

const text = (toks) =>
  toks
    .map((t) => (t.t === 'str' ? JSON.stringify(t.v) : t.v))
    .join(' ')
    .replace(/ ?([.(),[\]]) ?/g, '$1');

// ---------------------------------------------------------------------------------------------

/** Go literal -> JSON value ({v}); null if not a literal. */
function goLiteral(toks) {
  if (toks.length === 1 && toks[0].t === 'str') return { v: toks[0].v };
  if (toks.length === 1 && isId(toks[0], 'true')) return { v: true };
  if (toks.length === 1 && isId(toks[0], 'false')) return { v: false };
  if (toks.length === 1 && toks[0].t === 'num' && /^\d+$/.test(toks[0].v)) return { v: Number(toks[0].v) };
  if (toks.length === 2 && isP(toks[0], '-') && toks[1].t === 'num' && /^\d+$/.test(toks[1].v))
    return { v: -Number(toks[1].v) };
  return null;
}

/** `N * time.Unit` or `time.Unit` -> Go's duration string (5 * time.Minute -> "5m0s"). */
function goDuration(toks) {
  const units = { Nanosecond: 1e-9, Microsecond: 1e-6, Millisecond: 1e-3, Second: 1, Minute: 60, Hour: 3600 };
  let n = 1;
  let k = 0;
  if (toks[0]?.t === 'num' && isP(toks[1], '*')) {
    n = Number(toks[0].v);
    k = 2;
  }
  if (!(isId(toks[k], 'time') && isP(toks[k + 1], '.') && toks[k + 2]?.v in units) || toks.length !== k + 3)
    return null;
  const s = n * units[toks[k + 2].v];
  if (!Number.isInteger(s)) return null;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return (h ? `${h}h` : '') + (h || m ? `${m}m` : '') + `${sec}s`;
}

function extract(opts) {
  const dir = resolve(opts.dir);
  if (!existsSync(dir)) fail(`${dir}: no such directory`);
  let src;
  if (opts.ref) {
    try {
      src = git(dir, 'show', `${opts.ref}:${FILE}`);
    } catch {
      fail(`${dir}: no ${FILE} at ${opts.ref}`);
    }
  } else {
    const p = join(dir, FILE);
    if (!existsSync(p)) fail(`${p}: not found (is ${dir} an Ollama checkout?)`);
    src = readFileSync(p, 'utf8');
  }
  const ref = opts.ref ?? 'HEAD';
  let commit, date, subject;
  try {
    [commit, date, subject] = git(dir, 'log', '-1', '--format=%H%n%cI%n%s', ref).split('\n');
  } catch {
    fail(`${dir}: cannot read the commit of ${ref} (a git checkout is needed to name the source)`);
  }
  let tag = opts.tag;
  if (!tag) {
    if (opts.ref && git(dir, 'tag', '-l', opts.ref).trim() === opts.ref) tag = opts.ref;
    else {
      const tags = git(dir, 'tag', '--points-at', ref).split('\n').filter(Boolean);
      const stable = tags.filter((x) => /^v\d+\.\d+\.\d+$/.test(x));
      if (stable.length !== 1)
        fail(`${dir}: ${ref} has no single release tag (${tags.join(', ') || 'none'}); give --tag`);
      tag = stable[0];
    }
    if (!/^v\d+\.\d+\.\d+$/.test(tag)) fail(`${tag} is a pre-release; give --tag ${tag} to read it anyway`);
  }

  const { toks, comments } = tokenize(src);

  // --- accessors: `Name = Ctor("KEY"[, default])` in var blocks and `func Name(...) T { ... }`
  const CTORS = { Bool: 'bool', BoolWithDefault: 'bool', String: 'string', Uint: 'uint', Uint64: 'uint64' };
  const vars = new Map(); // Name -> { ctor, key, defaultToks }
  const funcs = new Map(); // Name -> { returns: toks, body: [a, b], line }
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i];
    if (isId(t, 'func') && isId(toks[i + 1]) && isP(toks[i + 2], '(')) {
      const pclose = matchClose(toks, i + 2);
      const b = toks.findIndex((x, k) => k > pclose && isP(x, '{'));
      const bclose = matchClose(toks, b);
      funcs.set(toks[i + 1].v, { returns: toks.slice(pclose + 1, b), body: [b + 1, bclose], line: t.line });
      i = bclose;
      continue;
    }
    if (
      isId(t) &&
      isP(toks[i + 1], '=') &&
      isId(toks[i + 2]) &&
      toks[i + 2].v in CTORS &&
      isP(toks[i + 3], '(') &&
      toks[i + 4]?.t === 'str'
    ) {
      const close = matchClose(toks, i + 3);
      const args = splitTop(toks, i + 4, close);
      vars.set(t.v, { ctor: toks[i + 2].v, key: toks[i + 4].v, defaultToks: args[1] ?? null, line: t.line });
      i = close;
    }
  }
  // every Var("KEY") in config.go, with the function it is in
  const varReads = [];
  for (const [name, f] of funcs) {
    for (let k = f.body[0]; k < f.body[1]; k++) {
      if (isId(toks[k], 'Var') && isP(toks[k + 1], '(') && toks[k + 2]?.t === 'str' && isP(toks[k + 3], ')'))
        varReads.push({ key: toks[k + 2].v, func: name });
    }
  }

  /** Doc comment lines directly above a line. */
  const docAbove = (line) => {
    const out = [];
    for (let l = line - 1; comments.has(l); l--) out.unshift(comments.get(l));
    return out.join('\n');
  };

  /** What a value expression of AsMap reads: type, default, accessor. */
  function describe(expr, key, where) {
    // Name(...) or Ctor("KEY")()
    if (isId(expr[0]) && expr[0].v in CTORS && isP(expr[1], '(') && expr[2]?.t === 'str') {
      const close = matchClose(expr, 1);
      if (!isP(expr[close + 1], '(') || matchClose(expr, close + 1) !== expr.length - 1)
        fail(`${where}: value not understood: ${text(expr)}`);
      if (expr[2].v !== key) fail(`${where}: ${key} is listed with an accessor of ${expr[2].v}`);
      const args = splitTop(expr, 2, close);
      return fromCtor(expr[0].v, args[1] ?? null, null, `${expr[0].v}("${key}")`);
    }
    if (!isId(expr[0]) || !isP(expr[1], '(') || matchClose(expr, 1) !== expr.length - 1)
      fail(`${where}: value not understood: ${text(expr)}`);
    const name = expr[0].v;
    const callArgs = splitTop(expr, 2, expr.length - 1);
    if (vars.has(name)) {
      const v = vars.get(name);
      if (v.key !== key) fail(`${where}: ${key} is listed with ${name}, which reads ${v.key}`);
      return fromCtor(v.ctor, v.defaultToks, callArgs[0] ?? null, name);
    }
    if (funcs.has(name)) return fromFunc(name, key, where);
    fail(`${where}: ${name} is neither an accessor variable nor a function of ${FILE}`);
  }

  function fromCtor(ctor, ctorDefault, callDefault, accessor) {
    const out = { type: CTORS[ctor], accessor };
    if (ctor === 'Bool') Object.assign(out, { default: false, defaultFrom: 'code' });
    else if (ctor === 'BoolWithDefault') {
      const lit = callDefault && goLiteral(callDefault);
      // BoolWithDefault takes its default at each call site: this is the one AsMap lists
      if (lit) Object.assign(out, { default: lit.v, defaultFrom: 'AsMap call' });
    } else if (ctor === 'Uint' || ctor === 'Uint64') {
      const lit = ctorDefault && goLiteral(ctorDefault);
      if (lit) Object.assign(out, { default: lit.v, defaultFrom: 'code' });
    }
    return out;
  }

  function fromFunc(name, key, where) {
    const f = funcs.get(name);
    // the result type, without a result name: `string`, `*url.URL`, `(keepAlive time.Duration)`
    let r = f.returns;
    if (isP(r[0], '(') && isP(r[r.length - 1], ')')) r = r.slice(1, -1);
    if (r.length > 1 && isId(r[0]) && !isP(r[1], '.')) r = r.slice(1);
    const rtype = r.map((x) => x.v).join('');
    const TYPES = {
      '*url.URL': 'url',
      '[]string': 'list',
      'time.Duration': 'duration',
      'slog.Level': 'loglevel',
      string: 'string',
      bool: 'bool',
    };
    const type =
      TYPES[rtype] ??
      fail(`${where}: ${name}() returns ${rtype || 'nothing'}, a type this extractor does not know`);
    const body = toks.slice(f.body[0], f.body[1]);
    const reads = new Set();
    for (let k = 0; k < body.length; k++) {
      if (isId(body[k], 'Var') && isP(body[k + 1], '(') && body[k + 2]?.t === 'str') reads.add(body[k + 2].v);
      // a call of an accessor variable: NoCloudEnv()
      if (isId(body[k]) && vars.has(body[k].v) && isP(body[k + 1], '(')) reads.add(vars.get(body[k].v).key);
    }
    if (!reads.has(key)) fail(`${where}: ${key} is listed with ${name}(), which does not read it`);
    const out = { type, accessor: `${name}()` };
    // a bool function over an accessor variable: that variable's default
    const viaVar = body.find(
      (x, k) => isId(x) && vars.has(x.v) && vars.get(x.v).key === key && isP(body[k + 1], '('),
    );
    if (viaVar) {
      const d = fromCtor(vars.get(viaVar.v).ctor, vars.get(viaVar.v).defaultToks, null, '');
      if ('default' in d) Object.assign(out, { default: d.default, defaultFrom: 'code' });
    }
    // the first assignment of a duration or slog level: keepAlive = 5 * time.Minute; level := slog.LevelInfo
    if (!('default' in out)) {
      for (let k = 0; k + 1 < body.length; k++) {
        if (!(isId(body[k]) && (isP(body[k + 1], '=') || isP(body[k + 1], ':=')))) continue;
        const end = body.findIndex((x, j) => j > k + 1 && x.line !== body[k + 1].line);
        const rhs = body.slice(k + 2, end < 0 ? body.length : end);
        const d = type === 'duration' ? goDuration(rhs) : null;
        const lvl =
          type === 'loglevel' &&
          rhs.length === 3 &&
          isId(rhs[0], 'slog') &&
          /^Level[A-Z][a-z]*$/.test(rhs[2]?.v ?? '')
            ? rhs[2].v.slice(5).toUpperCase()
            : null;
        if (d || lvl) Object.assign(out, { default: d ?? lvl, defaultFrom: 'code' });
        break;
      }
    }
    out.doc = docAbove(f.line);
    return out;
  }

  // --- AsMap(): the literal and the ret["KEY"] = EnvVar{...} additions, with their GOOS conditions
  const asMap = funcs.get('AsMap') ?? fail(`${FILE}: no func AsMap`);
  const [a, b] = asMap.body;
  const entries = [];
  let found = 0;
  const errors = [];
  const goosStack = [];
  const readEntry = (k, open, key, cond) => {
    // {"NAME", VALUE, "DESCRIPTION"} at toks[open]
    const close = matchClose(toks, open);
    const parts = splitTop(toks, open + 1, close);
    const where = `${FILE}:${toks[open].line}`;
    try {
      if (
        parts.length !== 3 ||
        parts[0].length !== 1 ||
        parts[0][0].t !== 'str' ||
        parts[2].length !== 1 ||
        parts[2][0].t !== 'str'
      )
        fail(`${where}: entry is not {"NAME", value, "description"}`);
      if (parts[0][0].v !== key) fail(`${where}: key ${key} holds the entry of ${parts[0][0].v}`);
      const { doc, ...d } = describe(parts[1], key, where);
      const e = { name: key, description: parts[2][0].v, ...d };
      // where the code gives no default: the description's own "(default X)", else the accessor
      // function's doc comment "Default is X"
      const dm = /\(default:? (?:"([^"]*)"|([^)]*))\)/.exec(e.description);
      const cm = doc && /^Default is (.+?)\.?$/m.exec(doc);
      if (dm && !('default' in e)) Object.assign(e, { default: dm[1] ?? dm[2], defaultFrom: 'description' });
      if (cm && !('default' in e)) Object.assign(e, { default: cm[1], defaultFrom: 'doc comment' });
      // other accessors of the same variable in config.go (OLLAMA_IGPU_ENABLE is listed as a String
      // but read as a BoolWithDefault)
      const others = [...vars].filter(
        ([n, v]) => v.key === key && n !== d.accessor && !d.accessor.startsWith(`${n}(`),
      );
      if (others.length) e.alsoReadAs = others.map(([n, v]) => ({ accessor: n, type: CTORS[v.ctor] }));
      if (cond.length) e.goos = cond.join(' && ');
      e.listed = true;
      entries.push(e);
    } catch (err) {
      if (!(err instanceof ExtractError)) throw err;
      errors.push(err.message);
    }
    return close;
  };
  for (let k = a; k < b; k++) {
    const t = toks[k];
    while (goosStack.length && k > goosStack[goosStack.length - 1].close) goosStack.pop();
    // if runtime.GOOS != "windows" {
    if (isId(t, 'if') && isId(toks[k + 1], 'runtime') && isP(toks[k + 2], '.') && isId(toks[k + 3], 'GOOS')) {
      const br = toks.findIndex((x, j) => j > k && isP(x, '{'));
      goosStack.push({
        close: matchClose(toks, br),
        cond: text(toks.slice(k + 1, br)).replace('runtime.GOOS', 'GOOS'),
      });
      k = br;
      continue;
    }
    const cond = goosStack.map((g) => g.cond);
    // "KEY": {...} inside map[string]EnvVar{...}
    if (t.t === 'str' && isP(toks[k + 1], ':') && isP(toks[k + 2], '{')) {
      found++;
      k = readEntry(k, k + 2, t.v, cond);
      continue;
    }
    // ret["KEY"] = EnvVar{...}
    if (
      isId(t) &&
      isP(toks[k + 1], '[') &&
      toks[k + 2]?.t === 'str' &&
      isP(toks[k + 3], ']') &&
      isP(toks[k + 4], '=')
    ) {
      found++;
      if (!isId(toks[k + 5], 'EnvVar') || !isP(toks[k + 6], '{')) {
        errors.push(`${FILE}:${t.line}: ${t.v}["${toks[k + 2].v}"] is not assigned an EnvVar{...}`);
        continue;
      }
      k = readEntry(k, k + 6, toks[k + 2].v, cond);
    }
  }
  // a cross-check on the raw text: every `{"KEY", ` in AsMap
  const rawEntries = (
    src
      .slice(src.indexOf('func AsMap()'), src.indexOf('\nfunc ', src.indexOf('func AsMap()') + 1))
      .match(/\{"[^"]+",/g) ?? []
  ).length;
  if (errors.length)
    fail(`${errors.length} of ${found} AsMap entries could not be read:\n  ${errors.join('\n  ')}`);
  if (rawEntries !== found) fail(`AsMap: ${rawEntries} {"KEY", ...} entries in the text, ${found} read`);
  const dup = entries.map((e) => `${e.name} ${e.goos ?? ''}`).find((x, i, all) => all.indexOf(x) !== i);
  if (dup) fail(`AsMap lists ${dup} twice`);

  // --- variables config.go reads that AsMap does not list
  const listed = new Set(entries.map((e) => e.name));
  const unlisted = new Map();
  for (const [name, v] of vars) {
    if (listed.has(v.key) || unlisted.has(v.key)) continue;
    unlisted.set(v.key, {
      name: v.key,
      description: null,
      ...fromCtor(v.ctor, v.defaultToks, null, name),
      listed: false,
    });
  }
  for (const r of varReads) {
    if (
      listed.has(r.key) ||
      unlisted.has(r.key) ||
      r.func === 'String' ||
      r.func === 'BoolWithDefault' ||
      r.func === 'Uint' ||
      r.func === 'Uint64'
    )
      continue;
    const { doc: _doc, ...d } = fromFunc(r.func, r.key, `${FILE}`);
    unlisted.set(r.key, { name: r.key, description: null, ...d, listed: false });
  }

  const variables = [...entries, ...unlisted.values()].sort((x, y) =>
    x.name < y.name ? -1 : x.name > y.name ? 1 : 0,
  );
  return {
    ollamaVersion: tag.replace(/^v/, ''),
    source: { repository: opts.repository, tag, commit, date, subject, files: [FILE] },
    generator: GENERATOR,
    counts: {
      asMapFound: found,
      asMapParsed: entries.length,
      unlisted: unlisted.size,
      variables: variables.length,
    },
    variables,
  };
}

function main() {
  let opts;
  try {
    opts = parseArgv(process.argv.slice(2));
    const table = extract(opts);
    const json = JSON.stringify(table, null, 1) + '\n';
    const c = table.counts;
    const line = `Ollama ${table.ollamaVersion}: ${c.asMapFound} AsMap entries found, ${c.asMapParsed} parsed; ${c.unlisted} more variables read but not listed; ${table.source.repository} @ ${table.source.commit} (${table.source.date}, ${table.source.subject})`;
    if (opts.stdout) {
      process.stdout.write(json);
      process.stderr.write(line + '\n');
      return;
    }
    const here = dirname(fileURLToPath(import.meta.url));
    const out = opts.out
      ? resolve(opts.out)
      : join(here, '..', '..', 'data', 'ollama-env', `${table.source.tag}.json`);
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, json);
    process.stdout.write(`${line} -> ${out}\n`);
  } catch (e) {
    if (e instanceof ExtractError) {
      process.stderr.write(`extract-ollama-env: ${e.message}\n`);
      process.exit(1);
    }
    throw e;
  }
}

main();
