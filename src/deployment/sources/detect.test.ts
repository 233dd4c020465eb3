import assert from 'node:assert/strict';
import { test } from 'node:test';
import { detectFileKind } from './detect.js';

test('by extension first, then shebang, compose names, and content', () => {
  assert.equal(detectFileKind('a/serve.yaml', 'vllm serve x'), 'yaml');
  assert.equal(detectFileKind('a/x.JSON', '{}'), 'yaml');
  assert.equal(detectFileKind('run.sh', 'apiVersion: v1'), 'shell');
  assert.equal(detectFileKind('start', '#!/bin/bash\nvllm serve m'), 'shell');
  assert.equal(detectFileKind('compose.override', 'services: {}'), 'yaml');
  assert.equal(detectFileKind('manifest', '# c\napiVersion: apps/v1\n'), 'yaml');
  assert.equal(detectFileKind('manifest', '---\nkind: x\n'), 'yaml');
  assert.equal(detectFileKind('cmd.txt', 'vllm serve m --port 1\n'), 'shell');
  assert.equal(detectFileKind('Makefile-ish', 'export A=1\nvllm serve m\n'), 'shell');
});
