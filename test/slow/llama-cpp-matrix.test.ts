/**
 * The llama.cpp matrix (slow tier): `faultline matrix examples/llama-cpp/matrix.yaml` — nine of
 * llama.cpp's features on tiny-swa, one thread per server, two cells at a time — runs to a verdict,
 * and that verdict is asserted whatever it is: corruption found must come with a verified
 * interaction and the remedies that cleared it; a clean run must have tested every valid pair of
 * levels with a verdict. Nothing is known in advance about a real engine's answer, so the test
 * prints it (t.diagnostic) for the findings write-up.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { AttributionReport } from '../../src/matrix/attribution.js';
import { repoRoot, runCli } from '../helpers/cli.js';

test('the llama.cpp matrix runs to a verdict: a verified interaction with its remedies, or clean with full pairwise coverage', { timeout: 1_800_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'fl-llama-matrix-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const started = Date.now();
  const r = await runCli(['matrix', join(repoRoot, 'examples/llama-cpp/matrix.yaml'), '--out', join(dir, 'run'), '--format', 'json', '--quiet'], {
    cwd: repoRoot,
    timeoutMs: 1_790_000,
  });
  t.diagnostic(`llama.cpp plan: ${((Date.now() - started) / 1000).toFixed(0)} s, exit ${r.code}`);
  assert.ok(r.code === 0 || r.code === 1, `exit 0 (clean) or 1 (corruption found), not ${r.code}\n${r.stderr.slice(-2000)}`);
  const report = JSON.parse(r.stdout) as AttributionReport;
  for (const c of report.cells) t.diagnostic(`${c.id} ${c.phase} ${c.outcome} ${JSON.stringify(c.levels)} ${c.detail ?? ''}`);
  t.diagnostic(`verdict ${report.verdict}; launches ${report.launches.used}; untested pairs ${report.coverage.uncoveredByVerdicts} of ${report.coverage.validTuples}`);
  // a hung cell is recorded as timeout and names its hung requests; it is never a pass
  for (const c of report.cells.filter((x) => x.outcome === 'timeout')) assert.match(c.detail ?? '', /hung \(no answer/, `${c.id}: ${c.detail}`);
  if (report.verdict === 'corruption-found') {
    assert.equal(r.code, 1);
    const verified = report.interactions.filter((i) => i.status === 'verified');
    assert.ok(verified.length > 0, 'corruption found comes with a verified interaction');
    for (const v of verified) {
      t.diagnostic(`interaction ${JSON.stringify(v.interaction)}; remedies ${JSON.stringify(v.remedies.map((m) => m.change))}`);
      assert.ok(v.minimalCell && report.cells.find((c) => c.id === v.minimalCell)?.outcome === 'corrupt', 'its minimal cell is corrupt');
      assert.ok(v.remedies.length > 0, 'each verified interaction has a remedy that passed');
    }
  } else {
    assert.equal(report.verdict, 'clean', `the run ends with a verdict, not ${report.verdict}`);
    assert.equal(r.code, 0);
    assert.ok(report.cells.every((c) => c.outcome === 'pass'), 'a clean run is every cell passing');
    assert.equal(report.coverage.uncoveredByVerdicts, 0, 'every valid pair of levels was tested by a PASS');
  }
});
