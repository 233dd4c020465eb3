import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { findHazard, hazards } from './index.js';

test('the registry is sorted by id, with unique ids and aliases', () => {
  const ids = hazards.map((h) => h.id);
  assert.deepEqual(ids, [...ids].sort());
  assert.equal(new Set(ids).size, ids.length);
  assert.equal(new Set(hazards.map((h) => h.alias)).size, hazards.length);
  assert.ok(hazards.length >= 8);
});

test('FL001 and FL002 carry the aliases the issue names', () => {
  assert.equal(findHazard('FL001')?.alias, 'swa-specdec-bf16q-fp8kv-trtllm');
  assert.equal(findHazard('fl002')?.alias, 'bf16q-fp8kv-scale-bookkeeping');
  assert.equal(findHazard('swa-specdec-bf16q-fp8kv-trtllm')?.id, 'FL001');
  assert.equal(findHazard('FL999'), undefined);
});

test('every catalog file is registered and named FLnnn-<alias>.ts; the table tests cover each (catalog.test.ts)', () => {
  const dir = fileURLToPath(new URL('./catalog/', import.meta.url));
  const files = readdirSync(dir);
  const sources = files.filter((f) => /^FL\d{3}-.*\.ts$/.test(f) && !f.endsWith('.test.ts'));
  assert.deepEqual(sources.sort(), hazards.map((h) => `${h.id}-${h.alias}.ts`).sort());
  assert.ok(files.includes('catalog.test.ts'));
});
