import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonWithRuntimeFields } from './json-runtime-fields.js';

const rt = { text: '$X', why: 'X is set by the caller', names: ['X'] };

test('a run-time value inside a JSON string leaves the other keys known', () => {
  const r = jsonWithRuntimeFields('{"method": "eagle3", "model": "$DRAFT", "num_speculative_tokens": 3}', rt);
  assert.deepEqual(r?.value, { method: 'eagle3', model: '$DRAFT', num_speculative_tokens: 3 });
  assert.deepEqual(Object.keys(r?.runtimeKeys ?? {}), ['model']);
  assert.deepEqual(r?.runtimeKeys.model.names, ['DRAFT']);
});

test('a bare run-time value (not in quotes) is one unknown field; nested keys are dotted', () => {
  const r = jsonWithRuntimeFields(
    '{"method": "mtp", "num_speculative_tokens": ${N:-1}, "draft": {"tp": $(nproc)}}',
    rt,
  );
  assert.equal(r?.value.method, 'mtp');
  assert.deepEqual(Object.keys(r?.runtimeKeys ?? {}).sort(), ['draft.tp', 'num_speculative_tokens']);
  assert.equal(r?.runtimeKeys.num_speculative_tokens.text, '${N:-1}');
});

test('text that is not JSON even with the run-time parts set aside stays wholly unknown', () => {
  assert.equal(jsonWithRuntimeFields('{"method": eagle3, "model": "$DRAFT"}', rt), undefined);
  assert.equal(jsonWithRuntimeFields('$SPEC_CONFIG', rt), undefined);
  assert.equal(jsonWithRuntimeFields('{"method": "ngram"}', rt), undefined);
});
