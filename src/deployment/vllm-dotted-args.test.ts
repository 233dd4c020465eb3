import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PreparedToken } from './argv-token.js';
import { isNegativeNumber, mergeDottedArgs, normalizeSpelling } from './vllm-dotted-args.js';

const toks = (...texts: string[]): PreparedToken[] =>
  texts.map((text, k) => ({ text, origin: 'cli', at: { file: 'f', line: 1, column: k + 1 } }));
const texts = (ts: PreparedToken[]): string[] => ts.map((t) => t.text);

test('spelling: underscores become dashes in the option name only', () => {
  assert.deepEqual(
    texts(
      normalizeSpelling(
        toks('--max_model_len=a_b', '--attention_config.use_trtllm_attention', 'x_y', '-ac.a_b', '-tp'),
      ),
    ),
    ['--max-model-len=a_b', '--attention-config.use_trtllm_attention', 'x_y', '-ac.a_b', '-tp'],
  );
});

test('spelling: the -O forms', () => {
  assert.deepEqual(texts(normalizeSpelling(toks('-O3'))), ['--optimization-level', '3']);
  assert.deepEqual(texts(normalizeSpelling(toks('-O=2'))), ['--optimization-level', '2']);
  assert.deepEqual(texts(normalizeSpelling(toks('-O', '1'))), ['--optimization-level', '1']);
  assert.deepEqual(texts(normalizeSpelling(toks('-O', 'x'))), ['-O', 'x']);
  assert.deepEqual(texts(normalizeSpelling(toks('-O.level=3'))), ['-O.level=3']);
});

test('dotted keys are removed with their values and re-emitted at the end, one JSON per prefix', () => {
  const { tokens } = mergeDottedArgs(
    toks('--a.x', '1', '--port', '8', '-cc.y=2', '--a.z.w=true', '--dir=/p.q'),
  );
  assert.deepEqual(texts(tokens), [
    '--port',
    '8',
    '--dir=/p.q',
    '--a',
    '{"x":1,"z":{"w":true}}',
    '-cc',
    '{"y":2}',
  ]);
  const a = tokens[3];
  assert.equal(a.origin, 'dotted');
  assert.equal(a.at?.column, 1);
  assert.deepEqual(tokens[4].preparsed?.keyAt, {
    x: { file: 'f', line: 1, column: 1 },
    'z.w': { file: 'f', line: 1, column: 6 },
  });
});

test('a repeated dotted key: the last wins and a note says so; "__proto__" stays data', () => {
  const { tokens, notes } = mergeDottedArgs(toks('--a.k=1', '--a.k=2', '--a.__proto__.polluted=1'));
  assert.deepEqual(tokens[1].preparsed?.value, JSON.parse('{"k":2,"__proto__":{"polluted":1}}'));
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.match(notes[0].value, /--a\.k is given more than once/);
});

test('negative numbers are not dotted keys', () => {
  assert.ok(isNegativeNumber('-0.5'));
  assert.ok(isNegativeNumber('-3'));
  assert.ok(!isNegativeNumber('-tp'));
  assert.deepEqual(texts(mergeDottedArgs(toks('--x', '-0.5')).tokens), ['--x', '-0.5']);
});
