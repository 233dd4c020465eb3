import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hazards } from './index.js';
import { hazardDocsDir, hazardDocsUrl, renderHazardMarkdown, staleHazardDocs } from './docs.js';

test('the committed docs/hazards pages equal the rendering of the data (regenerate: npx tsx scripts/gen-hazard-docs.ts)', () => {
  assert.deepEqual(staleHazardDocs(hazardDocsDir()), []);
});

test('a page has the generated header and every section, with every remedy and reference', () => {
  for (const h of hazards) {
    const md = renderHazardMarkdown(h);
    assert.match(md, new RegExp(`^<!-- Generated .*\\n\\n# ${h.id} \`${h.alias}\``));
    for (const s of ['## Problem', '## Conditions', '## Example', '## Fix', '## Not a fix', '## References'])
      assert.ok(md.includes(s), `${h.id}: ${s}`);
    for (const r of [...h.remedies, ...h.nonRemedies])
      assert.ok(md.includes(`(\`${r.id}\`)`), `${h.id}: ${r.id}`);
    assert.ok(md.includes(h.examples.failing.command) && md.includes(h.examples.clean.command));
    assert.equal(md.includes('Reported, not confirmed'), h.confidence === 'reported');
    for (const r of h.references) assert.ok(md.includes(r.url));
    for (const c of h.conditions) assert.ok(md.includes(`\`${c.name}\``));
  }
});

test('docs URLs are absolute: the installed file by default, a published base when configured', () => {
  const h = hazards.find((x) => x.id === 'FL001') ?? hazards[0];
  assert.match(hazardDocsUrl(h), /^file:\/\/.*\/docs\/hazards\/FL001\.md$/);
  assert.equal(
    hazardDocsUrl(h, { FAULTLINE_DOCS_BASE_URL: 'https://example.org/hazards/' }),
    'https://example.org/hazards/FL001.md',
  );
});
