/**
 * The Slurm executor against a real Slurm when the node fails under a cell: slurmd stopped
 * while the cell is probed is node-failed, never a pass, and the node serves again once slurmd
 * is back. In the slow tier (`.ci/run` runs it; ~35 s, most of it slurmctld noticing the dead
 * node), beside it the quick fault cases are test/e2e/slurm.test.ts. Holds the cluster lock:
 * stopping slurmd breaks any other job on the cluster.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  assertSlurmUp,
  holdClusterLockForFile,
  jobState,
  queuedJobsOf,
  skipUnlessSlurm,
  slurmLocal,
} from '../helpers/slurm-cluster.js';
import {
  argvProbe,
  referenceServer,
  runThroughSlurm,
  slurmJobOf,
  standInPlan,
  until,
} from '../helpers/slurm-runs.js';

const { skip } = skipUnlessSlurm();
holdClusterLockForFile(skip);

test(
  'the node failing under a cell (slurmd stopped) is node-failed, never pass; the node comes back after',
  { skip, timeout: 900_000 },
  async () => {
    assertSlurmUp();
    const url = await referenceServer();
    let pidFile = '';
    const probe = argvProbe(async (cellDir, argv) => {
      if (!argv.includes('--b')) return;
      const job = slurmJobOf(cellDir);
      pidFile = join(cellDir, 'pids.json');
      slurmLocal('stop-node');
      try {
        // slurmctld declares the node down after SlurmdTimeout (10 s on the local cluster)
        await until('NODE_FAIL', 120_000, () => jobState(job) === 'NODE_FAIL');
      } finally {
        slurmLocal('start');
      }
    });
    const { run, tag } = await runThroughSlurm(
      standInPlan(['--b'], {}, `reference: { url: "${url}" }\n`),
      probe,
    );
    const b = run.cells.find((c) => c.levels.x === 'b')!;
    assert.equal(b.outcome, 'node-failed', JSON.stringify(b));
    assert.match(b.detail ?? '', /ended NODE_FAIL/);
    assert.equal(
      run.cells.find((c) => c.levels.x === 'a')?.outcome,
      'pass',
      'the node serves again once slurmd is back',
    );
    assert.deepEqual(queuedJobsOf(tag), []);
    // slurmd, restarted, ends what the failed job left on the node
    const { server } = JSON.parse(readFileSync(pidFile, 'utf8')) as { server: number };
    await until(`the failed job's server (pid ${server}) to be ended`, 30_000, () => {
      try {
        process.kill(server, 0);
        return false;
      } catch {
        return true;
      }
    });
  },
);
