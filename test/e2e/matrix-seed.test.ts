/**
 * The seed plan cut to what `npm test` must prove on every change: the README's plan
 * (examples/seed-b200/matrix.yaml: its launch, reference, probe and settings unchanged) with only the
 * three factors of the canonical interaction — KV cache bf16/fp8, speculative off/k7 (q_len_per_req 8),
 * Q quantization enabled/disabled — and one bystander (enforce_eager), through the real CLI against the
 * real engine. It must localize exactly {fp8, k7, disabled}, verify dropping each of the three as a
 * remedy by a launch that passes, and call enforce_eager not involved. The full eight-factor run (320
 * configurations, ≤ 30 launches, k3 clean, every choice factor) is the slow tier:
 * test/slow/matrix-seed.test.ts, `npm run test:slow`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse, stringify } from 'yaml';
import type { AttributionReport } from '../../src/matrix/attribution.js';
import { repoRoot, runCli } from '../helpers/cli.js';

const KEEP = ['kv_cache', 'speculative', 'q_quantization', 'enforce_eager'];

/** The seed plan with only the KEEP factors (and speculative without k3); the constraints named only the dropped ones. */
function cutPlan(): string {
  const plan = parse(readFileSync(join(repoRoot, 'examples/seed-b200/matrix.yaml'), 'utf8')) as { factors: Record<string, { levels: Record<string, unknown> }>; constraints?: unknown };
  plan.factors = Object.fromEntries(Object.entries(plan.factors).filter(([name]) => KEEP.includes(name)));
  delete plan.factors.speculative.levels.k3;
  delete plan.constraints;
  return stringify(plan);
}

test('the seed plan cut to the canonical three factors and a bystander localizes {fp8, k7, disabled} with verified remedies', { timeout: 400_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'fl-matrix-seed-cut-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const planFile = join(dir, 'matrix.yaml');
  writeFileSync(planFile, cutPlan());
  const started = Date.now();
  const r = await runCli(['matrix', planFile, '--parallel', '2', '--out', join(dir, 'run'), '--format', 'json'], { cwd: repoRoot, timeoutMs: 390_000 });
  t.diagnostic(`cut seed plan: ${((Date.now() - started) / 1000).toFixed(0)} s with --parallel 2`);
  assert.equal(r.code, 1, `exit 1 = corruption found\n${r.stderr.slice(-2000)}`);
  const report = JSON.parse(r.stdout) as AttributionReport;
  assert.equal(report.verdict, 'corruption-found');
  const verified = report.interactions.filter((i) => i.status === 'verified');
  assert.equal(verified.length, 1, JSON.stringify(report.interactions, null, 1));
  assert.deepEqual(verified[0].interaction, { kv_cache: 'fp8', speculative: 'k7', q_quantization: 'disabled' });
  const remedies = verified[0].remedies.filter((m) => m.outcome === 'pass').map((m) => JSON.stringify(m.change));
  for (const change of [{ kv_cache: 'bf16' }, { speculative: 'off' }, { q_quantization: 'enabled' }])
    assert.ok(remedies.includes(JSON.stringify(change)), `remedy ${JSON.stringify(change)} in ${remedies.join(' ')}`);
  const notInvolved = new Map(report.notInvolved.map((n) => [n.factor, n.corruptWith]));
  assert.deepEqual(notInvolved.get('enforce_eager')?.sort(), ['off', 'on'], 'corrupt with eager mode on and off');
  assert.equal(report.launches.exhaustive, 16);
});
