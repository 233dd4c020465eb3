import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { UserError } from '../core/errors.js';
import { locateOffset, parsePythonJson } from './python-json.js';

test('parses what JSON.parse parses, to the same value', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (v) => {
      const text = JSON.stringify(v, null, 1);
      assert.deepEqual(parsePythonJson(text, 'f'), JSON.parse(text));
    }),
    { seed: 5, numRuns: 300 },
  );
});

test('accepts the NaN / Infinity that Python writes', () => {
  const v = parsePythonJson('{"a": NaN, "b": [Infinity, -Infinity], "c": -1.5e3}', 'f') as Record<
    string,
    unknown
  >;
  assert.ok(Number.isNaN(v.a as number));
  assert.deepEqual(v.b, [Infinity, -Infinity]);
  assert.equal(v.c, -1500);
});

test('syntax errors are UserErrors at file:line:col', () => {
  const cases: [string, number, number][] = [
    ['{\n  "a": 1,\n}', 3, 1],
    ['{\n  "a" 1\n}', 2, 7],
    ['{"a": tru}', 1, 7],
    ['{"a": 1', 1, 8],
    ['', 1, 1],
    ['{"a": "x\n"}', 1, 9],
    ['{"a": 1} x', 1, 10],
    ['{"a": 01}', 1, 8],
  ];
  for (const [text, line, column] of cases) {
    try {
      parsePythonJson(text, 'config.json');
      assert.fail(`accepted ${JSON.stringify(text)}`);
    } catch (e) {
      assert.ok(e instanceof UserError);
      assert.deepEqual(e.at, { file: 'config.json', line, column }, JSON.stringify(text));
      assert.match(e.message, /config\.json is not valid JSON/);
    }
  }
});

test('random text: a value or a UserError', () => {
  fc.assert(
    fc.property(fc.string(), (s) => {
      try {
        parsePythonJson(s, 'f');
      } catch (e) {
        assert.ok(e instanceof UserError);
      }
    }),
    { seed: 9, numRuns: 500 },
  );
  assert.deepEqual(locateOffset('f', 'ab\ncd', 4), { file: 'f', line: 2, column: 2 });
});
