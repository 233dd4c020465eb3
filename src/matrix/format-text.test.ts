import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { buildAttribution } from './attribution.js';
import { createFakeWorld } from './fake-executor.js';
import { formatAttributionJson, formatAttributionText } from './format-text.js';
import { loadPlanFile } from './plan-load.js';
import { runMatrix } from './run.js';

const plan = loadPlanFile(fileURLToPath(new URL('../../test/fixtures/matrix/seed-like.yaml', import.meta.url)));

async function report(options: Parameters<typeof createFakeWorld>[0]) {
  const world = createFakeWorld(options);
  return buildAttribution(await runMatrix({ plan, executor: world.executor, probe: world.probe, shrinkSteps: 1000 }));
}

test('text: the matrix with reference levels as ·, the interaction, remedies, launches beside exhaustive', async () => {
  const text = formatAttributionText(await report({ faults: [{ fp8_kv: 'on', spec_k: '7', q_quant: 'disabled' }], launchFailures: [{ batch_invariant: 'on', eager: 'on' }] }));
  const lines = text.split('\n');
  const header = lines.find((l) => l.startsWith('cell'));
  assert.match(header ?? '', /^cell\s+phase\s+fp8_kv\s+spec\s+spec_k\s+q_quant\s+eager\s+prefix_cache\s+block_size\s+batch_invariant\s+verdict\s+corrupt$/);
  assert.ok(lines.some((l) => /^c\d{3}\s+maximal\s+on\s/.test(l)));
  assert.ok(lines.some((l) => /CORRUPT\s+25%$/.test(l)));
  assert.ok(lines.some((l) => /LAUNCH-FAILED$/.test(l)));
  assert.ok(lines.some((l) => /^c\d{3}\s+covering\s+·/.test(l)));
  assert.ok(text.includes('  fp8_kv=on + spec_k=7 + q_quant=disabled\n'));
  assert.match(text, /- q_quant → enabled\s+\(c\d{3} PASS/);
  // the failed launches all hold both pairs below: the report names each, not a guess
  assert.match(text, /Launch failures \(no verdict; these cells say nothing about corruption\):\n {2}.*\beager=on \+ batch_invariant=on\b.*: c\d{3}/);
  assert.match(text, /Launches: \d+ used \(reference 1, covering array \d+ rows\) — exhaustive: 320; one-factor-at-a-time: 11/);
  assert.match(text, /Verdict: corruption-found\n$/);
});

test('text: a clean run says so; JSON is the same report', async () => {
  const r = await report({ faults: [] });
  assert.match(formatAttributionText(r), /No corruption: every launch passed/);
  assert.deepEqual(JSON.parse(formatAttributionJson(r)), JSON.parse(JSON.stringify(r)));
});
