/**
 * The workload suite per matrix cell against the real engine (slow tier: about 40 s on 2 cores):
 * `faultline matrix examples/workload/matrix.yaml` — one factor switches the engine's
 * stale-prefix-hash fault model on, another prefix caching — localizes the two-factor interaction
 * from the workload probes' verdicts, and names the workload feature the corrupt requests shared
 * in the JSON report, the journal and the HTML page.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { AttributionReport } from '../../src/matrix/attribution.js';
import { repoRoot, runCli } from '../helpers/cli.js';

test('stale-prefix-hash × prefix caching is localized by workload probes, and the corrupt cell names after-eviction', { timeout: 600_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'fl-matrix-workload-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const started = Date.now();
  const html = join(dir, 'report.html');
  const r = await runCli(['matrix', join(repoRoot, 'examples/workload/matrix.yaml'), '--out', join(dir, 'run'), '--format', 'json', '--quiet', '--html', html], {
    cwd: repoRoot,
    timeoutMs: 590_000,
  });
  t.diagnostic(`workload plan: ${((Date.now() - started) / 1000).toFixed(0)} s`);
  assert.equal(r.code, 1, `exit 1 = corruption found\n${r.stderr.slice(-2000)}`);
  const report = JSON.parse(r.stdout) as AttributionReport;
  const verified = report.interactions.filter((i) => i.status === 'verified');
  assert.deepEqual(verified.map((i) => i.interaction), [{ prefix_caching: 'on', stale_prefix_hash: 'on' }]);
  assert.deepEqual(verified[0].remedies.map((m) => m.change).sort((a, b) => Object.keys(a)[0].localeCompare(Object.keys(b)[0])), [{ prefix_caching: 'off' }, { stale_prefix_hash: 'off' }]);
  const minimal = report.cells.find((c) => c.id === verified[0].minimalCell)!;
  assert.equal(minimal.outcome, 'corrupt');
  assert.ok(minimal.features?.includes('after-eviction'), JSON.stringify(minimal));
  for (const c of report.cells.filter((x) => x.outcome !== 'corrupt')) assert.equal(c.outcome, 'pass', `${c.id}: ${c.detail}`);
  const journal = readFileSync(join(dir, 'run', 'journal.jsonl'), 'utf8');
  assert.match(journal, /"features":\["after-eviction"/);
  assert.match(readFileSync(html, 'utf8'), /every corrupt request had after-eviction/);
});
