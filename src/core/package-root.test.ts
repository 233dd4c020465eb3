import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './package-root.js';

test('packageRoot is the directory holding faultline\'s package.json, bin/ and models/', () => {
  assert.equal(JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')).name, 'faultline');
  assert.ok(existsSync(join(packageRoot, 'bin', 'faultline.js')));
  assert.ok(existsSync(join(packageRoot, 'models', 'tiny-swa', 'config.json')));
  assert.ok(!packageRoot.endsWith('/'), 'no trailing separator: plans write {faultline_root}/bin/...');
});
