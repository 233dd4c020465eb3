/**
 * The Slurm executor against a real Slurm (scripts/slurm-local.sh's one-node cluster; .ci/run
 * starts it). Skipped, loudly, on a machine without a cluster; under CI a missing cluster fails.
 *
 * - faults, each its own recorded outcome and never a pass: a job kept PENDING past the plan's
 *   limit (not-scheduled), a server that never gets healthy (timeout), a cell's job killed with
 *   scancel while it was probed (cancelled), the node's slurmd stopped under a cell (node-failed);
 * - faultline SIGKILLed mid-run: its jobs run on, --resume re-attaches to them and finishes with
 *   the same answer, and no job of the run is left in squeue.
 * They use a stand-in server (test/fixtures/matrix/stand-in-server.mjs) to stay quick; the seed
 * case through Slurm, with the real CLI and engine, is test/slow/slurm-matrix.test.ts.
 * One file, run in order, holding the cluster lock: the node-failure test stops slurmd.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { MatrixProbe } from '../../src/matrix/cell-probe.js';
import { executorForPlan } from '../../src/matrix/executors/select.js';
import type { JobRecord } from '../../src/matrix/executors/job-record.js';
import { runTag } from '../../src/matrix/executors/slurm/slurm-executor.js';
import type { JournalRecord } from '../../src/matrix/journal.js';
import { createLocalExecutor, freePort } from '../../src/matrix/local-executor.js';
import { parsePlan } from '../../src/matrix/plan-load.js';
import { runMatrix, type MatrixRun } from '../../src/matrix/run.js';
import { repoRoot } from '../helpers/cli.js';
import {
  assertSlurmUp,
  jobState,
  queuedJobsOf,
  scancel,
  skipUnlessSlurm,
  slurmLocal,
  holdClusterLockForFile,
} from '../helpers/slurm-cluster.js';

const standIn = fileURLToPath(new URL('../fixtures/matrix/stand-in-server.mjs', import.meta.url));
const runParent = fileURLToPath(new URL('../fixtures/slurm/run-parent.ts', import.meta.url));
const tsxLoader = import.meta.resolve('tsx');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const { skip } = skipUnlessSlurm();
const slow = { skip, timeout: 900_000 };

// one test file at a time on the cluster (across worktrees too)
holdClusterLockForFile(skip);

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function scratch(): string {
  const d = mkdtempSync(join(tmpdir(), 'fl-slurm-e2e-'));
  dirs.push(d);
  return d;
}

/** A plan of one factor x over stand-in servers: level a is plain, level b gets `b` (argv words). */
function standInPlan(b: string[], executor: Record<string, unknown>, extra = ''): string {
  return `launch:
  argv: [${JSON.stringify(process.execPath)}, ${JSON.stringify(standIn)}, --port, "{port}", --pid-file, "{cell_dir}/pids.json"]
  ready_timeout_s: 4
  stop_timeout_s: 2
executor: ${JSON.stringify({ kind: 'slurm', time: '5', host: '127.0.0.1', poll_s: 0.3, gres_per_gpu: null, ...executor })}
factors:
  x:
    levels:
      a: {}
      b: { argv: ${JSON.stringify(b)} }
confirm: 0
${extra}`;
}

/** A stand-in reference outside Slurm (reference.url), so fault runs submit only the cells. */
async function referenceServer(): Promise<string> {
  const port = await freePort('127.0.0.1');
  const child = spawn(process.execPath, [standIn, '--port', String(port)], { stdio: 'ignore' });
  after(() => child.kill('SIGKILL'));
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return `http://127.0.0.1:${port}`;
    } catch {
      // not up yet
    }
    await sleep(100);
  }
  throw new Error('the stand-in reference did not start');
}

interface FaultRun {
  run: MatrixRun;
  records: JobRecord[];
  runDir: string;
  tag: string;
}

/** runMatrix in-process through the Slurm executor, as the CLI wires it; the probe is made for the run directory. */
async function runThroughSlurm(
  planText: string,
  probeFor: (runDir: string) => MatrixProbe,
): Promise<FaultRun> {
  const runDir = scratch();
  const probe = probeFor(runDir);
  const file = join(runDir, 'plan.yaml');
  writeFileSync(file, planText);
  const plan = parsePlan(file, planText);
  const records: JobRecord[] = [];
  const local = createLocalExecutor({
    runDir,
    slots: 1,
    health: '/health',
    readyTimeoutMs: 1000,
    stopTimeoutMs: 1000,
  });
  const executor = await executorForPlan(plan, local, {
    runDir,
    cwd: repoRoot,
    record: (r) => records.push(r),
    resumed: [],
    slots: plan.executor.parallel,
    env: process.env,
  });
  const run = await runMatrix({ plan, executor, probe, shrinkSteps: 50 });
  return { run, records, runDir, tag: runTag(runDir) };
}

/** Asks the stand-in for its argv (so the server is really there), lets the test act on the cell, then says pass. */
const argvProbe =
  (onProbe?: (cellDir: string, argv: string[]) => Promise<void>) =>
  (runDir: string): MatrixProbe => ({
    captureReference: async () => ({}),
    probeCell: async (url, context) => {
      const argv = (await (await fetch(`${url}/argv`)).json()) as string[];
      await onProbe?.(join(runDir, 'cells', context.cellId), argv);
      return { outcome: 'pass', corruptRate: 0, requests: 1 }; // says pass whatever happened: the executor must know better
    },
  });

function slurmJobOf(cellDir: string): string {
  return (JSON.parse(readFileSync(join(cellDir, 'launch.json'), 'utf8')) as { slurmJob: string }).slurmJob;
}

async function until<T>(what: string, ms: number, fn: () => T | undefined | false): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = fn();
    if (v) return v;
    await sleep(250);
  }
  throw new Error(`timed out waiting for ${what}`);
}

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
    // kill once a cell is journaled and two cell jobs of the run are running
    await until(`two cells in flight\n${first.out()}`, 240_000, () => {
      const cells = records().filter((r) => r.type === 'cell').length;
      const running = queuedJobsOf(tag).filter((l) => l.endsWith('|RUNNING')).length;
      return cells >= 1 && running >= 2;
    });
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
  'the node failing under a cell (slurmd stopped) is node-failed, never pass; the node comes back after',
  slow,
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
