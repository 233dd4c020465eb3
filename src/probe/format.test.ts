import { test } from 'node:test';
import assert from 'node:assert/strict';
import { printable } from './format.js';

test('model text cannot move the cursor or break lines in the report', () => {
  assert.equal(printable('a\nb\x1b[2Jc\u0085'), 'a⏎b\\x1b[2Jc\\x85');
  assert.equal(printable('plain ✓'), 'plain ✓');
});
