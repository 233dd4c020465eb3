import assert from 'node:assert/strict';
import { test } from 'node:test';
import { interpolateCompose, type ComposeValue } from './compose-interpolate.js';
import { parseDotenv } from './compose-dotenv.js';

const vars = (o: Record<string, string>) => (name: string): ComposeValue | undefined => (name in o ? { value: o[name], from: '.env' } : undefined);
const run = (text: string, o: Record<string, string> = {}) => interpolateCompose(text, vars(o), 'is not known here');

test('Compose interpolation: plain, braced, defaults for unset / empty, $$, nested defaults', () => {
  assert.equal(run('$A-${B}', { A: 'x', B: 'y' }).text, 'x-y');
  assert.equal(run('${M:-org/model}').text, 'org/model');
  assert.equal(run('${M:-org/model}', { M: '' }).text, 'org/model');
  assert.equal(run('${M-org/model}', { M: '' }).text, '');
  assert.equal(run('${M-org/model}').text, 'org/model');
  assert.equal(run('$$HOME $${X}').text, '$HOME ${X}');
  assert.equal(run('${A:-${B:-deep}}').text, 'deep');
  assert.equal(run('${A:-${B}}', { B: 'b' }).text, 'b');
  assert.equal(run('${A:+--enforce-eager}', { A: '1' }).text, '--enforce-eager');
  assert.equal(run('${A:+--enforce-eager}', { A: '' }).text, '');
});

test('what cannot be resolved stays as written, with a note at its offset; a default used is said so', () => {
  const r = run('--port ${PORT} --tp $TP --m ${M:?set M}');
  assert.equal(r.text, '--port ${PORT} --tp $TP --m ${M}');
  assert.deepEqual(
    r.notes.map((n) => [n.offset, n.value.split(' ')[0]]),
    [[7, '${PORT}'], [20, '$TP'], [28, '${M}']],
  );
  assert.match(r.notes[2].value, /refuses to start without it \("set M"\)/);
  assert.match(run('${KV:-fp8}').notes[0].value, /used its default "fp8" \(the caller may override it\)/);
  assert.match(run('${A:+x}').notes[0].value, /whether "x" is used is not known/);
  // an unclosed brace or a bad name is left as written
  assert.equal(run('${A').text, '${A');
  assert.equal(run('${1x}').text, '${1x}');
});

test('offsets map every output character back to the text it came from', () => {
  const r = run('a ${B} c', { B: 'xyz' });
  assert.equal(r.text, 'a xyz c');
  assert.deepEqual(r.offsets, [0, 1, 2, 2, 2, 6, 7]);
});

test('.env: export, comments, quotes, escapes, inline comments on unquoted values', () => {
  const env = parseDotenv(`# comment\nexport TAG=v0.10.1\nKV='fp8 #kept'\nEXTRA="--a\\t--b"\nPLAIN=x y # comment\nbad line\n\nEMPTY=\n`);
  assert.deepEqual(Object.fromEntries(env), { TAG: 'v0.10.1', KV: 'fp8 #kept', EXTRA: '--a\t--b', PLAIN: 'x y', EMPTY: '' });
});
