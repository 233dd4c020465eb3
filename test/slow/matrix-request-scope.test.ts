/**
 * A request-scope factor against the real engine (slow tier: about two minutes on 2 cores):
 * `faultline matrix examples/request-scope/matrix.yaml` — the engine with the fault model of
 * hazard FL013's mechanism (specdec-penalties-dropped) — finds speculative=ngram ×
 * penalty=repetition, a launch flag × a request parameter, and the penalty costs no launch: cells
 * that differ only in it share one server.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { AttributionReport } from '../../src/matrix/attribution.js';
import { repoRoot, runCli } from '../helpers/cli.js';

test('speculative decoding × repetition_penalty is found on the engine, without a launch per penalty level', { timeout: 600_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'fl-matrix-request-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const started = Date.now();
  const r = await runCli(['matrix', join(repoRoot, 'examples/request-scope/matrix.yaml'), '--parallel', '2', '--out', join(dir, 'run'), '--format', 'json', '--quiet'], {
    cwd: repoRoot,
    timeoutMs: 590_000,
  });
  t.diagnostic(`request-scope plan: ${((Date.now() - started) / 1000).toFixed(0)} s with --parallel 2`);
  assert.equal(r.code, 1, `exit 1 = corruption found\n${r.stderr.slice(-2000)}`);
  const report = JSON.parse(r.stdout) as AttributionReport;
  const verified = report.interactions.filter((i) => i.status === 'verified');
  assert.deepEqual(verified.map((i) => i.interaction), [{ speculative: 'ngram', penalty: 'repetition' }]);
  // one launch per launch configuration (plus the reference), whatever the penalty levels
  const launchConfigs = new Set(report.cells.map((c) => `${c.levels.speculative}|${c.levels.prefix_caching}`));
  assert.ok(report.launches.used <= 1 + launchConfigs.size, `${report.launches.used} launches for ${launchConfigs.size} launch configurations`);
  assert.ok(report.cells.length > launchConfigs.size, 'cells at both penalty levels of a launch');
  t.diagnostic(`${report.launches.used} launches for ${report.cells.length} cells`);
});
