import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tokensFromArgv } from './argv-token.js';

test('argv tokens are located at line 1, column = argument index + 1', () => {
  assert.deepEqual(tokensFromArgv(['vllm', 'serve']), [
    { text: 'vllm', at: { file: '<argv>', line: 1, column: 1 } },
    { text: 'serve', at: { file: '<argv>', line: 1, column: 2 } },
  ]);
  assert.equal(tokensFromArgv(['a'], 'cmd')[0].at?.file, 'cmd');
});
