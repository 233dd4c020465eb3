import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseHeredocBody, parseShell, ShellSyntaxError, type Word } from './shell-lexer.js';

/** A word's text with quotes removed and expansions as written. */
function show(w: Word): string {
  return w.parts.map((p) => (p.kind === 'literal' ? p.text : p.raw)).join('');
}

test('splits commands on operators and newlines, keeping word start offsets', () => {
  const cmds = parseShell('a b; c && d | e &\nf');
  assert.deepEqual(
    cmds.map((c) => [c.words.map(show), c.terminator]),
    [[['a', 'b'], ';'], [['c'], '&&'], [['d'], '|'], [['e'], '&'], [['f'], '']],
  );
  assert.equal(cmds[0].words[1].start, 2);
  assert.equal(cmds[4].words[0].start, 18);
});

test('line continuations join lines; a comment swallows its trailing backslash', () => {
  const cmds = parseShell('a \\\n  b # c \\\nd');
  assert.deepEqual(cmds.map((c) => c.words.map(show)), [['a', 'b'], ['d']]);
});

test('an escaped space before a newline is a word of one space, and the newline ends the command', () => {
  const cmds = parseShell('x --f=1 \\ \n--next \\\n');
  assert.deepEqual(cmds.map((c) => c.words.map(show)), [['x', '--f=1', ' '], ['--next']]);
});

test('quotes: single quotes keep everything, double quotes keep $ expansions, per-char offsets point into the source', () => {
  const [c] = parseShell(`cmd '{"a": 1,\n "b": 2}' "x $Y \\"z\\"" $'t\\tu'`);
  assert.deepEqual(c.words.map(show), ['cmd', '{"a": 1,\n "b": 2}', 'x $Y "z"', 't\tu']);
  const lit = c.words[1].parts[0];
  assert.equal(lit.kind, 'literal');
  if (lit.kind === 'literal') assert.equal(lit.offsets[0], 5);
  const param = c.words[2].parts.find((p) => p.kind === 'param');
  assert.equal(param?.kind === 'param' && param.name, 'Y');
});

test('parameter expansions: names, defaults and complex forms', () => {
  const [c] = parseShell('e ${A:-x y} ${B} $C ${#D} ${E%/*} $1 "$@"');
  const params = c.words.flatMap((w) => w.parts.filter((p) => p.kind === 'param'));
  assert.deepEqual(
    params.map((p) => (p.kind === 'param' ? [p.name, p.op ?? ''] : [])),
    [['A', ':-'], ['B', ''], ['C', ''], ['#', 'complex'], ['E', 'complex'], ['1', ''], ['@', '']],
  );
});

test('command substitutions are kept whole, including nested parentheses and quotes', () => {
  const [c] = parseShell(`x=$(dirname "$(pwd)") y=\`date\` z=$((1 + (2)))`);
  assert.deepEqual(c.words.map(show), ['x=$(dirname "$(pwd)")', 'y=`date`', 'z=$((1 + (2)))']);
});

test('redirections: fds, targets, and heredoc bodies read after the line', () => {
  const src = 'cat > out.yaml <<EOF\nk: $V\n  \\$x\nEOF\nvllm serve m > log 2>&1 &\n';
  const cmds = parseShell(src);
  assert.deepEqual(cmds.map((c) => c.words.map(show)), [['cat'], ['vllm', 'serve', 'm']]);
  const [out, here] = cmds[0].redirects;
  assert.equal(out.op, '>');
  assert.equal(show(out.target!), 'out.yaml');
  assert.equal(here.heredoc?.body, 'k: $V\n  \\$x\n');
  assert.equal(here.heredoc?.offsets[0], src.indexOf('k:'));
  const parts = parseHeredocBody(here.heredoc!);
  assert.deepEqual(parts.map((p) => (p.kind === 'literal' ? p.text : p.raw)), ['k: ', '$V', '\n  $x\n']);
  assert.deepEqual(cmds[1].redirects.map((r) => [r.fd ?? '', r.op, show(r.target!)]), [['', '>', 'log'], ['2', '>&', '1']]);
});

test('quoted heredoc delimiters and <<- keep the body literal and strip leading tabs', () => {
  const [c] = parseShell("cat <<-'END' > f\n\tv: $X\n\tEND\n");
  const h = c.redirects.find((r) => r.heredoc)!.heredoc!;
  assert.equal(h.quoted, true);
  assert.equal(h.body, 'v: $X\n');
  assert.deepEqual(parseHeredocBody(h).map((p) => p.kind), ['literal']);
});

test('unterminated quotes are syntax errors at the opening quote', () => {
  for (const [src, offset] of [["a 'b", 2], ['a "b', 2], ['a $(b', 2], ['a ${b', 2], ['a `b', 2]] as const) {
    assert.throws(
      () => parseShell(src),
      (e: unknown) => e instanceof ShellSyntaxError && e.offset === offset,
      src,
    );
  }
});
