import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  configBool,
  dottedValue,
  humanReadableInt,
  pythonFloat,
  pythonInt,
  pythonJsonLoads,
  pythonStr,
} from './vllm-values.js';

test('pythonInt / pythonFloat follow Python int() / float()', () => {
  assert.equal(pythonInt(' 42 '), 42);
  assert.equal(pythonInt('-7'), -7);
  assert.equal(pythonInt('1_000'), 1000);
  for (const bad of ['1.0', '1e3', '', '1__0', '0x10', 'two']) assert.equal(pythonInt(bad), undefined, bad);
  assert.equal(pythonFloat('0.9'), 0.9);
  assert.equal(pythonFloat('.5'), 0.5);
  assert.equal(pythonFloat('5.'), 5);
  assert.equal(pythonFloat('1e-3'), 0.001);
  assert.equal(pythonFloat('-Infinity'), -Infinity);
  assert.ok(Number.isNaN(pythonFloat('nan') ?? 0));
  for (const bad of ['', '.', 'e3', '1.2.3', 'most']) assert.equal(pythonFloat(bad), undefined, bad);
});

test('humanReadableInt is vLLM human_readable_int', () => {
  assert.deepEqual(humanReadableInt('1k'), { value: 1000 });
  assert.deepEqual(humanReadableInt('1K'), { value: 1024 });
  assert.deepEqual(humanReadableInt('25.6k'), { value: 25600 });
  assert.deepEqual(humanReadableInt('2M'), { value: 2097152 });
  assert.deepEqual(humanReadableInt('3g'), { value: 3e9 });
  assert.deepEqual(humanReadableInt('8192'), { value: 8192 });
  assert.ok('error' in humanReadableInt('1.5K'));
  assert.ok('error' in humanReadableInt('k'));
});

test('dotted values: JSON, then human-readable int, else raw string', () => {
  assert.equal(dottedValue('true'), true);
  assert.equal(dottedValue('True'), 'True');
  assert.equal(dottedValue('3'), 3);
  assert.equal(dottedValue('"3"'), '3');
  assert.equal(dottedValue('80g'), 80e9);
  assert.equal(dottedValue('FLASHINFER'), 'FLASHINFER');
  assert.equal(dottedValue('null'), null);
  assert.deepEqual(dottedValue('[1, "a"]'), [1, 'a']);
  assert.equal(dottedValue('NaN'), dottedValue('NaN')); // a number (NaN), like Python json.loads
  assert.equal(typeof dottedValue('NaN'), 'number');
  assert.ok('error' in pythonJsonLoads('{bad'));
});

test('pythonStr prints YAML scalars as Python str() does', () => {
  assert.equal(pythonStr(null), 'None');
  assert.equal(pythonStr(true), 'True');
  assert.equal(pythonStr(2), '2');
  assert.equal(pythonStr(2, true), '2.0');
  assert.equal(pythonStr(0.6), '0.6');
  assert.equal(pythonStr('x'), 'x');
});

test('configBool is pydantic lax bool', () => {
  for (const t of [true, 1, 'true', 'True', '1', 'yes', 'on', 't', 'y'])
    assert.equal(configBool(t), true, String(t));
  for (const f of [false, 0, 'false', 'FALSE', '0', 'no', 'off', 'f', 'n'])
    assert.equal(configBool(f), false, String(f));
  for (const x of [2, 'maybe', null, undefined, {}]) assert.equal(configBool(x), undefined, String(x));
});
