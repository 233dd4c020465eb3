import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isUserError } from '../core/errors.js';
import { parseLocatedYaml } from './yaml-located.js';

test('a mapping or sequence used as a key is a plan error at the key, not a stringified key', () => {
  for (const [text, kind, line, column] of [
    ['factors:\n  ? [3, 7]\n  : x\n', 'sequence', 2, 5],
    ['factors:\n  {a: 1}: x\n', 'mapping', 2, 3],
  ] as const)
    assert.throws(
      () => parseLocatedYaml('plan.yaml', text),
      (e) => isUserError(e) && e.message === `a ${kind} is used as a key` && e.at?.line === line && e.at?.column === column,
    );
  // plain keys, numbers among them, still read
  const y = parseLocatedYaml('plan.yaml', 'levels:\n  16: {}\n  na: {}\n');
  assert.deepEqual(y.keysAt(['levels']), ['16', 'na']);
});
