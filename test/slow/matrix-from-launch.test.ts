/**
 * `faultline matrix --from examples/seed-b200/serve.sh --target engine` (slow tier: minutes on 2
 * cores): the plan `faultline plan` makes from the seed launch — eight factors read off the launch,
 * no YAML written by hand — run against the engine finds the canonical interaction (FP8 KV ×
 * MTP with k = 7 × Q quantization disabled), reports each factor's failing and safe levels, and
 * keeps the generated plan in the run directory. The wall time is printed, not asserted.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { AttributionReport } from '../../src/matrix/attribution.js';
import { repoRoot, runCli } from '../helpers/cli.js';

test('the plan made from the seed launch finds the canonical interaction on the engine', { timeout: 600_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'fl-matrix-from-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const runDir = join(dir, 'run');
  const started = Date.now();
  const seed = (f: string) => join(repoRoot, 'examples/seed-b200', f);
  const args = ['matrix', '--from', seed('serve.sh'), '--model-config', seed('config.json'), '--gpu', 'B200', '--target', 'engine'];
  const r = await runCli([...args, '--parallel', '2', '--out', runDir, '--format', 'json', '--quiet'], { cwd: repoRoot, timeoutMs: 590_000 });
  t.diagnostic(`plan of the seed launch: ${((Date.now() - started) / 1000).toFixed(0)} s with --parallel 2`);
  assert.equal(r.code, 1, `exit 1 = corruption found\n${r.stderr.slice(-2000)}`);
  const report = JSON.parse(r.stdout) as AttributionReport;
  const verified = report.interactions.filter((i) => i.status === 'verified');
  assert.equal(verified.length, 1, JSON.stringify(report.interactions, null, 1));
  assert.deepEqual(verified[0].interaction, { kv_cache: 'fp8_e4m3', speculative: 'mtp-k7', q_quantization: 'disabled' });
  assert.deepEqual(verified[0].levels?.kv_cache.failing, ['fp8_e4m3']);
  assert.deepEqual(verified[0].levels?.kv_cache.safe, ['bf16']);
  t.diagnostic(`${report.launches.used} launches of ${report.launches.exhaustive} valid configurations`);

  // the run kept the plan it ran, and it is the one `faultline plan` writes
  const plan = await runCli(['plan', seed('serve.sh'), '--model-config', seed('config.json'), '--gpu', 'B200', '--target', 'engine'], { cwd: repoRoot });
  assert.equal(plan.code, 0, plan.stderr);
  assert.equal(readFileSync(join(runDir, 'plan.yaml'), 'utf8'), plan.stdout);
});
