/**
 * The Slurm executor against a real Slurm (scripts/slurm-local.sh's one-node cluster; .ci/run
 * starts it). Skipped, loudly, on a machine without a cluster; under CI a missing cluster fails.
 *
 * - faults, each its own recorded outcome and never a pass: a job kept PENDING past the plan's
 *   limit (not-scheduled), a server that never gets healthy (timeout), a cell's job killed with
 *   scancel while it was probed (cancelled); the node failing under a cell (slurmd stopped) is
 *   test/slow/slurm-node-failure.test.ts, as it stops the cluster's only node for ~30 s;
 * - faultline SIGKILLed mid-run: its jobs run on, --resume re-attaches to them and finishes with
 *   the same answer, and no job of the run is left in squeue;
 * - `faultline matrix --cleanup RUN_DIR` after a SIGKILL cancels the run's jobs, the journal's
 *   and one it never heard of.
 * They use a stand-in server (test/fixtures/matrix/stand-in-server.mjs) to stay quick, and run
 * at once (each its own run directory, so its own job names); the seed case through Slurm,
 * with the real CLI and engine, is test/slow/slurm-matrix.test.ts. The file holds the cluster
 * lock, so that nobody's node-failure test stops slurmd under these jobs.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { JobRecord } from '../../src/matrix/executors/job-record.js';
import { createSlurmExecutor, runTag } from '../../src/matrix/executors/slurm/slurm-executor.js';
import { Journal, type JournalRecord } from '../../src/matrix/journal.js';
import { repoRoot, runCli } from '../helpers/cli.js';
import {
  assertSlurmUp,
  jobState,
  queuedJobsOf,
  scancel,
  skipUnlessSlurm,
  holdClusterLockForFile,
} from '../helpers/slurm-cluster.js';
import {
  argvProbe,
  referenceServer,
  runThroughSlurm,
  scratch,
  slurmJobOf,
  standIn,
  standInPlan,
  until,
} from '../helpers/slurm-runs.js';

const runParent = fileURLToPath(new URL('../fixtures/slurm/run-parent.ts', import.meta.url));
const tsxLoader = import.meta.resolve('tsx');
const { skip } = skipUnlessSlurm();
const slow = { skip, timeout: 900_000 };

// one test file at a time on the cluster (across worktrees too)
holdClusterLockForFile(skip);

const journalOf = (runDir: string): JournalRecord[] => {
  const journal = join(runDir, 'journal.jsonl');
  return existsSync(journal)
    ? readFileSync(journal, 'utf8')
        .split('\n')
        .filter((l) => l.endsWith('}'))
        .map((l) => JSON.parse(l) as JournalRecord)
    : [];
};

describe('the Slurm executor on a real cluster', { concurrency: true }, () => {
  test(
    'a job kept PENDING past pending_timeout_s is not-scheduled, cancelled, and never a pass',
    slow,
    async () => {
      assertSlurmUp();
      const url = await referenceServer();
      // --begin: Slurm holds the job for an hour, as a full partition would
      const { run, tag } = await runThroughSlurm(
        standInPlan(
          [],
          { pending_timeout_s: 2, sbatch_args: ['--begin=now+3600'] },
          `reference: { url: "${url}" }\n`,
        ),
        argvProbe(),
      );
      assert.ok(run.cells.length >= 1);
      for (const c of run.cells) {
        assert.equal(c.outcome, 'not-scheduled', JSON.stringify(c));
        assert.match(c.detail ?? '', /still PENDING \(BeginTime\) after 2 s/);
      }
      assert.deepEqual(queuedJobsOf(tag), []);
    },
  );

  test('a server that never gets healthy in its job is timeout, and its job is cancelled', slow, async () => {
    assertSlurmUp();
    const url = await referenceServer();
    const { run, records, tag } = await runThroughSlurm(
      standInPlan(['--never-ready'], {}, `reference: { url: "${url}" }\n`),
      argvProbe(),
    );
    const b = run.cells.find((c) => c.levels.x === 'b')!;
    assert.equal(b.outcome, 'timeout', JSON.stringify(b));
    assert.match(b.detail ?? '', /never answered within 4 s/);
    assert.equal(run.cells.find((c) => c.levels.x === 'a')?.outcome, 'pass');
    assert.ok(records.filter((r) => r.event === 'ended').every((r) => r.state === 'CANCELLED'));
    assert.deepEqual(queuedJobsOf(tag), []);
  });

  test(
    'a cell whose job is killed with scancel while it is probed is recorded as cancelled, though the probe said pass',
    slow,
    async () => {
      assertSlurmUp();
      const url = await referenceServer();
      let killed = '';
      const probe = argvProbe(async (cellDir, argv) => {
        if (!argv.includes('--b')) return;
        killed = slurmJobOf(cellDir);
        scancel(killed);
        await until('the killed server to go away', 30_000, () => {
          const s = jobState(killed);
          return s !== 'RUNNING' && s !== 'COMPLETING' && s;
        });
      });
      const { run, tag } = await runThroughSlurm(
        standInPlan(['--b'], {}, `reference: { url: "${url}" }\n`),
        probe,
      );
      const b = run.cells.find((c) => c.levels.x === 'b')!;
      assert.ok(killed, 'the probe killed the job of cell b');
      assert.equal(b.outcome, 'cancelled', JSON.stringify(b));
      assert.match(
        b.detail ?? '',
        new RegExp(`Slurm job ${killed} ended CANCELLED.*\\(the probe said pass\\)`, 's'),
      );
      assert.equal(run.cells.find((c) => c.levels.x === 'a')?.outcome, 'pass');
      assert.deepEqual(queuedJobsOf(tag), []);
    },
  );

  test(
    'faultline SIGKILLed mid-run: its jobs run on; --resume re-attaches to them, finishes with the same answer, squeue empty',
    slow,
    async () => {
      assertSlurmUp();
      const dir = scratch();
      const plan = join(dir, 'plan.yaml');
      writeFileSync(
        plan,
        `launch:
  argv: [${JSON.stringify(process.execPath)}, ${JSON.stringify(standIn)}, --port, "{port}"]
  ready_timeout_s: 30
  stop_timeout_s: 2
executor: { kind: slurm, time: "10", host: 127.0.0.1, poll_s: 0.3, gres_per_gpu: null, parallel: 2 }
factors:
  a: { levels: { "off": {}, "on": { argv: [--fault-a] } } }
  b: { levels: { "off": {}, "on": { argv: [--fault-b] } } }
  c: { levels: { "off": {}, "on": { argv: [--other] } } }
strength: 2
confirm: 0
`,
      );
      const runDir = join(dir, 'run');
      const journal = join(runDir, 'journal.jsonl');
      const records = (): JournalRecord[] =>
        existsSync(journal)
          ? readFileSync(journal, 'utf8')
              .split('\n')
              .filter((l) => l.endsWith('}'))
              .map((l) => JSON.parse(l) as JournalRecord)
          : [];
      const start = (
        ...extra: string[]
      ): { child: ChildProcess; out: () => string; exited: Promise<number | null> } => {
        const child = spawn(process.execPath, ['--import', tsxLoader, runParent, plan, runDir, ...extra], {
          cwd: repoRoot,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        child.stdout!.on('data', (d) => (out += d));
        child.stderr!.on('data', (d) => (out += d));
        return { child, out: () => out, exited: new Promise((r) => child.on('close', (code) => r(code))) };
      };
      const first = start();
      const tag = runTag(runDir);
      // kill once a cell is journaled and another cell's job is running (by the journal: reading it
      // is quick, where squeue on a loaded machine can miss the window)
      await until(
        () => `a cell journaled and another in flight; the run said:\n${first.out()}`,
        240_000,
        () => {
          const all = records();
          const ended = new Set(
            all.filter((r) => r.type === 'job' && r.event === 'ended').map((r) => (r as JobRecord).job),
          );
          // a cell's job whose cell has no result yet: in flight (a finished cell's server may stay up for reuse)
          const finished = new Set(all.flatMap((r) => (r.type === 'cell' ? [r.cell.id] : [])));
          const running = all.filter((r) => r.type === 'job' && r.event === 'running' && !ended.has(r.job) && r.cell !== 'reference' && !finished.has(r.cell));
          return finished.size > 0 && running.length >= 1;
        },
        50,
      );
      first.child.kill('SIGKILL');
      await first.exited;
      const survivors = queuedJobsOf(tag);
      assert.ok(survivors.length >= 1, 'jobs of a SIGKILLed run keep running (nothing could cancel them)');
      const before = records();

      const second = start('--resume');
      assert.equal(await second.exited, 0, second.out());
      const result = JSON.parse(/RESULT (.*)/.exec(second.out())![1]) as {
        verdict: string;
        interactions: [string, Record<string, string>][];
      };
      assert.equal(result.verdict, 'corruption-found');
      assert.deepEqual(result.interactions, [['verified', { a: 'on', b: 'on' }]]);
      const all = records();
      const adopted = all.filter((r): r is JobRecord => r.type === 'job' && r.event === 'adopted');
      assert.ok(adopted.length >= 1, 'the resumed run re-attached to a job the killed one left running');
      for (const a of adopted)
        assert.ok(
          survivors.some((s) => s.startsWith(`${a.job}|`)),
          `adopted job ${a.job} was one left running`,
        );
      const submittedBefore = new Set(
        before
          .filter((r): r is JobRecord => r.type === 'job' && r.event === 'submitted')
          .map((r) => JSON.stringify(r.levels)),
      );
      const submittedAfter = all
        .slice(before.length)
        .filter((r): r is JobRecord => r.type === 'job' && r.event === 'submitted');
      // the cell that re-attached launched nothing of its own (a later verification re-run of the same levels may)
      for (const a of adopted)
        assert.ok(
          !submittedAfter.some((x) => x.cell === a.cell),
          `cell ${a.cell} re-attached to job ${a.job} and also submitted one`,
        );
      assert.ok(submittedBefore.size >= 2);
      const ids = all
        .filter((r): r is Extract<JournalRecord, { type: 'cell' }> => r.type === 'cell')
        .map((r) => r.cell.id);
      assert.equal(new Set(ids).size, ids.length, `a cell was journaled twice: ${ids.join(' ')}`);
      assert.deepEqual(queuedJobsOf(tag), [], 'no job of the run is left in squeue');
    },
  );

  test(
    "faultline matrix --cleanup after a SIGKILL cancels every job of the run: the journal's, and one submitted just before the crash that it never heard of",
    slow,
    async () => {
      assertSlurmUp();
      const runDir = join(scratch(), 'run');
      const journal = Journal.create(runDir, {
        type: 'run',
        version: 1,
        planFile: 'plan.yaml',
        planHash: 'x',
        faultline: 'test',
        startedAt: new Date().toISOString(),
      });
      const executor = createSlurmExecutor({
        runDir,
        slurm: {
          kind: 'slurm',
          time: '5',
          host: '127.0.0.1',
          poll_s: 0.3,
          gres_per_gpu: null,
          parallel: 2,
          sbatch_args: [],
          pending_timeout_s: 60,
        },
        health: '/health',
        readyTimeoutMs: 30_000,
        stopTimeoutMs: 2000,
        cwd: repoRoot,
        record: (r) => journal.append(r),
      });
      const launched = await executor.launch(
        {
          cellId: 'c001',
          config: [],
          levels: { x: 'a' },
          argv: [process.execPath, standIn, '--port', '{port}'],
          env: {},
          slot: 0,
        },
        new AbortController().signal,
      );
      assert.ok(launched.ok, JSON.stringify(launched));
      journal.close(); // faultline "killed": nothing stops the server or cancels its job
      const tag = runTag(runDir);
      const ghost = spawnSync(
        'sbatch',
        [
          '--parsable',
          `--job-name=fl-${tag}-c002`,
          '--time=5',
          '--output=/dev/null',
          '--wrap',
          'exec sleep 300',
        ],
        { encoding: 'utf8' },
      );
      assert.equal(ghost.status, 0, ghost.stderr);
      const ghostId = ghost.stdout.trim();
      const journaledId = slurmJobOf(join(runDir, 'cells', 'c001'));
      assert.equal(queuedJobsOf(tag).length, 2);

      const r = await runCli(['matrix', '--cleanup', runDir]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(
        r.stdout,
        new RegExp(
          `cancelled 2 Slurm job\\(s\\) left by .*${journaledId} \\(c001, ended CANCELLED\\).*${ghostId} \\(c002, ended CANCELLED\\)`,
        ),
      );
      assert.deepEqual(queuedJobsOf(tag), [], 'squeue lists no job of the run');
      const ended = journalOf(runDir).filter((x): x is JobRecord => x.type === 'job' && x.event === 'ended');
      assert.deepEqual(
        ended.map((x) => [x.job, x.state, x.by]).sort(),
        [
          [journaledId, 'CANCELLED', 'cleanup'],
          [ghostId, 'CANCELLED', 'cleanup'],
        ].sort(),
      );
      const again = await runCli(['matrix', '--cleanup', runDir]);
      assert.equal(again.code, 0, again.stderr);
      assert.match(
        again.stdout,
        /no server of .* is running, and none of its scheduler jobs is queued or running/,
      );
    },
  );
});
