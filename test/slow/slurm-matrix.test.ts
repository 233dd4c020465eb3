/**
 * The seed case through a real Slurm (scripts/slurm-local.sh's one-node cluster; .ci/run starts
 * it): `faultline matrix` — the real CLI, every cell an sbatch job running faultline's engine —
 * finds {kv_cache=fp8, speculative=k7, q_quantization=disabled} on test/fixtures/slurm/small.yaml
 * (the seed plan's three suspects and one bystander), with two cell jobs running at once by
 * Slurm's own clock, and leaves no job of the run in squeue. Minutes on a 2-core machine, so it
 * is in the slow tier; the whole seed plan through Slurm is bench/matrix-slurm.ts. Skipped,
 * loudly, without a cluster; under CI a missing cluster fails it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { AttributionReport } from '../../src/matrix/attribution.js';
import type { JobRecord } from '../../src/matrix/executors/job-record.js';
import { runTag } from '../../src/matrix/executors/slurm/slurm-executor.js';
import type { JournalRecord } from '../../src/matrix/journal.js';
import { runCli } from '../helpers/cli.js';
import {
  assertSlurmUp,
  holdClusterLockForFile,
  queuedJobsOf,
  skipUnlessSlurm,
} from '../helpers/slurm-cluster.js';

const smallPlan = fileURLToPath(new URL('../fixtures/slurm/small.yaml', import.meta.url));
const { skip } = skipUnlessSlurm();
holdClusterLockForFile(skip);
const dir = mkdtempSync(join(tmpdir(), 'fl-slurm-slow-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const scratch = () => dir;
const slow = { skip, timeout: 900_000 };

/** Cell jobs (not the reference) running at the same time, by Slurm's own start and end times. */
function mostCellJobsAtOnce(records: JobRecord[]): number {
  const spans = new Map<string, { cell: string; start?: string; end?: string }>();
  for (const r of records) {
    const s = spans.get(r.job) ?? { cell: r.cell };
    if (r.event === 'running' && r.schedulerTime && !s.start) s.start = r.schedulerTime;
    if (r.event === 'ended' && r.schedulerTime) s.end = r.schedulerTime;
    if (r.event === 'submitted') s.cell = r.cell;
    spans.set(r.job, s);
  }
  const cells = [...spans.values()].filter((s) => s.cell !== 'reference' && s.start && s.end);
  let most = 0;
  for (const s of cells)
    most = Math.max(most, cells.filter((o) => o.start! <= s.start! && s.start! < o.end!).length);
  return most;
}

test(
  'faultline matrix through Slurm finds {kv_cache=fp8, speculative=k7, q_quantization=disabled}, two cell jobs at once, squeue empty after',
  slow,
  async (t) => {
    assertSlurmUp();
    const runDir = join(scratch(), 'run');
    const started = Date.now();
    const r = await runCli(['matrix', smallPlan, '--out', runDir, '--format', 'json', '--quiet'], {
      timeoutMs: 880_000,
    });
    t.diagnostic(`the Slurm e2e plan: ${((Date.now() - started) / 1000).toFixed(0)} s`);
    assert.equal(r.code, 1, `exit 1 = corruption found\n${r.stderr.slice(-3000)}`);
    const report = JSON.parse(r.stdout) as AttributionReport;
    const verified = report.interactions.filter((i) => i.status === 'verified');
    assert.deepEqual(
      verified.map((i) => i.interaction),
      [{ kv_cache: 'fp8', speculative: 'k7', q_quantization: 'disabled' }],
    );
    assert.ok(report.notInvolved.some((n) => n.factor === 'enforce_eager'));
    const journal = readFileSync(join(runDir, 'journal.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as JournalRecord);
    const jobs = journal.filter((x): x is JobRecord => x.type === 'job');
    const cells = journal.filter((x) => x.type === 'cell');
    assert.equal(
      new Set(jobs.filter((j) => j.event === 'submitted').map((j) => j.job)).size,
      cells.length + 1,
      'one job per cell, and the reference',
    );
    const most = mostCellJobsAtOnce(jobs);
    t.diagnostic(`cell jobs running at once (Slurm's clock): ${most}`);
    assert.ok(most >= 2, `at most ${most} cell job(s) ran at once`);
    assert.ok(
      jobs.filter((j) => j.event === 'ended').every((j) => j.state === 'CANCELLED'),
      'every job was ended by faultline, after its cell',
    );
    assert.match(readFileSync(join(runDir, 'cells/c001/job.sbatch'), 'utf8'), /#SBATCH --gres=gpu:1/);
    assert.deepEqual(queuedJobsOf(runTag(runDir)), [], 'squeue holds no job of the run');
  },
);
