import { test } from 'node:test';
import assert from 'node:assert/strict';
import { main } from './main.js';
import { memoryIO } from './io.js';
import { VERSION } from '../core/version.js';
import { CATALOG_VERSION } from '../hazards/catalog-list.js';
import { hazards } from '../hazards/index.js';
import { readFileSync } from 'node:fs';

test('--version prints the package version and the hazard catalog version, and exits 0', async () => {
  const io = memoryIO();
  assert.equal(await main(['--version'], io), 0);
  const [first, second] = io.stdout().trim().split('\n');
  assert.equal(first, `faultline ${VERSION}`);
  assert.equal(second, `hazard catalog ${CATALOG_VERSION} (${hazards.length} hazards: ${hazards[0].id}–${hazards.at(-1)!.id})`);
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  assert.equal(pkg.version, VERSION);
});

test('an unknown command exits 2 with a hint, no stack trace', async () => {
  const io = memoryIO();
  assert.equal(await main(['no-such-command'], io), 2);
  assert.match(io.stderr(), /^error: /);
  assert.doesNotMatch(io.stderr(), /at .*\.ts:\d+/);
});
