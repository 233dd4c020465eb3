/**
 * The full seed run (the slow tier: `npm run test:slow`, run by `.ci/run` after `npm test`; minutes
 * on 2 cores). The README's main command, end to end: `faultline matrix examples/seed-b200/matrix.yaml` against
 * the engine (tiny-swa, sm100-affected emulation) finds exactly the canonical interaction — FP8 KV ×
 * speculative decoding with q_len_per_req 8 (k7) × Q quantization disabled — verifies dropping each
 * of the three as a remedy, calls enforce_eager (and the other factors) not involved, and stays
 * within 24 launches. Run with --parallel 2, as the README suggests on a 2-core machine (the
 * wall time is printed, not asserted: speed is a benchmark's business). In `npm test`, the matrix's
 * end-to-end localization is test/slow/matrix-resume.test.ts (the scale defect, interrupted and resumed).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { AttributionReport } from '../../src/matrix/attribution.js';
import { repoRoot, runCli } from '../helpers/cli.js';

test('the seed plan localizes the canonical fault, with verified remedies, in ≤ 24 launches', { timeout: 600_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'fl-matrix-seed-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const runDir = join(dir, 'run');
  const started = Date.now();
  const r = await runCli(['matrix', join(repoRoot, 'examples/seed-b200/matrix.yaml'), '--parallel', '2', '--out', runDir, '--format', 'json'], {
    cwd: repoRoot,
    timeoutMs: 590_000,
  });
  t.diagnostic(`seed plan: ${((Date.now() - started) / 1000).toFixed(0)} s with --parallel 2`);
  assert.equal(r.code, 1, `exit 1 = corruption found\n${r.stderr.slice(-2000)}`);
  const report = JSON.parse(r.stdout) as AttributionReport;
  assert.equal(report.verdict, 'corruption-found');

  const verified = report.interactions.filter((i) => i.status === 'verified');
  assert.equal(verified.length, 1, JSON.stringify(report.interactions, null, 1));
  const [found] = verified;
  assert.deepEqual(found.interaction, { kv_cache: 'fp8', speculative: 'k7', q_quantization: 'disabled' });
  // dropping any one of the three is a remedy, each verified by a launch that passed
  const remedies = found.remedies.filter((m) => m.outcome === 'pass').map((m) => JSON.stringify(m.change));
  for (const change of [{ kv_cache: 'bf16' }, { speculative: 'off' }, { q_quantization: 'enabled' }])
    assert.ok(remedies.includes(JSON.stringify(change)), `remedy ${JSON.stringify(change)} in ${remedies.join(' ')}`);

  const notInvolved = new Map(report.notInvolved.map((n) => [n.factor, n.corruptWith]));
  assert.deepEqual(notInvolved.get('enforce_eager')?.sort(), ['off', 'on'], 'corrupt with eager mode on and off');
  for (const factor of ['spec_method', 'prefix_caching', 'block_size', 'batch_variant']) assert.ok(notInvolved.has(factor), factor);

  // q_len_per_req 4 (k3) is clean: no k3 cell ran corrupt
  assert.ok(report.cells.filter((c) => c.levels.speculative === 'k3').every((c) => c.outcome !== 'corrupt'));
  // the failing and safe level sets: fp8 is the plan's only FP8 level
  assert.deepEqual(found.levels?.kv_cache, { failing: ['fp8'], safe: ['bf16'], impossible: [], unknown: [] });
  assert.ok(report.launches.used <= 24, `${report.launches.used} launches`);
  assert.equal(report.launches.exhaustive, 320);

  // every cell left its logs; the journal records the run's end, and every server it started as stopped
  const cells = readdirSync(join(runDir, 'cells'));
  assert.ok(cells.includes('reference'));
  const records = readFileSync(join(runDir, 'journal.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; pgid?: number });
  assert.equal(records.filter((r) => r.type !== 'server-stopped').at(-1)?.type, 'done');
  const stopped = new Set(records.filter((r) => r.type === 'server-stopped').map((r) => r.pgid));
  const serversStarted = records.filter((r) => r.type === 'server').map((r) => r.pgid);
  assert.ok(serversStarted.length > 0 && serversStarted.every((pgid) => stopped.has(pgid)), `servers started ${serversStarted.length}, stopped ${stopped.size}`);
});
