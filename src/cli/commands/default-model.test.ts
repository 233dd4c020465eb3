import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../core/package-root.js';
import { defaultModelDir } from './default-model.js';

test('without --model: models/tiny-swa of the working directory, else the package\'s own (an install run elsewhere)', () => {
  assert.equal(defaultModelDir(packageRoot), join(packageRoot, 'models/tiny-swa'));
  const elsewhere = mkdtempSync(join(tmpdir(), 'faultline-cwd-'));
  try {
    assert.equal(defaultModelDir(elsewhere), join(packageRoot, 'models/tiny-swa'));
  } finally {
    rmSync(elsewhere, { recursive: true, force: true });
  }
});
