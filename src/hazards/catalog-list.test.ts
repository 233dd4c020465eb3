import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { catalogEntry, CATALOG_VERSION, formatCatalogText } from './catalog-list.js';
import { hazards } from './index.js';

const changelog = readFileSync(new URL('../../CHANGELOG.md', import.meta.url), 'utf8');

test('CHANGELOG.md has a section for the current catalog version, newest first', () => {
  const versions = [...changelog.matchAll(/^### Catalog (\d+)$/gm)].map((m) => Number(m[1]));
  assert.equal(versions[0], CATALOG_VERSION);
  assert.deepEqual(
    versions,
    [...versions].sort((a, b) => b - a),
  );
});

test('every hazard id is named in the changelog (FLa–FLb ranges count)', () => {
  const named = new Set<string>();
  for (const m of changelog.matchAll(/FL(\d{3})(?:–FL(\d{3}))?/g)) {
    const from = Number(m[1]);
    const to = m[2] ? Number(m[2]) : from;
    for (let k = from; k <= to; k++) named.add(`FL${String(k).padStart(3, '0')}`);
  }
  for (const h of hazards) assert.ok(named.has(h.id), `${h.id} is not in CHANGELOG.md`);
});

test('catalog entries carry the version bounds of the version conditions as data', () => {
  const fl013 = catalogEntry(hazards.find((h) => h.id === 'FL013')!);
  assert.equal(fl013.versions.vllm?.fixedBy, 'PR #19482');
  assert.equal(fl013.versions.vllm?.containsFixFrom?.version, '0.23.1');
  assert.deepEqual(fl013.remedies, ['no-speculative-decoding', 'upgrade-vllm']);
  assert.match(
    formatCatalogText(hazards),
    /^FL013 +specdec-penalties-dropped +vllm +warning +confirmed +any +< 0\.23\.1 \(fix PR #19482\) +—$/m,
  );
});
