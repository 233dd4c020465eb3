import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeSlurm, type Phase } from '../../../../test/helpers/fake-slurm.js';
import type { LaunchRequest } from '../../executor.js';
import type { SlurmExecutorData } from '../executor-schema.js';
import type { JobRecord } from '../job-record.js';
import { createSlurmExecutor, runTag, type SlurmExecutorOptions } from './slurm-executor.js';

const slurm: SlurmExecutorData = {
  kind: 'slurm',
  parallel: 2,
  time: '10',
  gres_per_gpu: 'gpu',
  sbatch_args: [],
  poll_s: 0.02,
  pending_timeout_s: 0.3,
  host: '127.0.0.1',
};
const never = new AbortController().signal;

function request(cellId: string, levels: Record<string, string> = { a: 'on' }): LaunchRequest {
  return { cellId, config: [], levels, argv: ['srv', '--port', '{port}'], env: {}, slot: 0, gpuCount: 2 };
}

/** A healthy server for the fake jobs to point at (its /health answers 200). */
async function healthyServer(t: { after(fn: () => unknown): void }): Promise<number> {
  const server: Server = createServer((req, res) => res.writeHead(req.url === '/health' ? 200 : 404).end());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => server.close());
  return (server.address() as { port: number }).port;
}

function setup(
  t: { after(fn: () => unknown): void },
  phases: (n: number) => Phase[],
  extra: Partial<SlurmExecutorOptions> = {},
) {
  const runDir = mkdtempSync(join(tmpdir(), 'fl-slurm-unit-'));
  t.after(() => rmSync(runDir, { recursive: true, force: true }));
  const fake = createFakeSlurm(phases);
  const records: JobRecord[] = [];
  const executor = createSlurmExecutor({
    runDir,
    slurm,
    health: '/health',
    readyTimeoutMs: 400,
    stopTimeoutMs: 200,
    commands: fake,
    record: (r) => records.push(r),
    ...extra,
  });
  t.after(() => executor.close?.());
  return { runDir, fake, records, executor };
}

/** The executor a resumed run makes: the same Slurm, the killed run's records, its own journal. */
function resumedExecutor(
  runDir: string,
  commands: SlurmExecutorOptions['commands'],
  previous: JobRecord[],
  records: JobRecord[],
) {
  return createSlurmExecutor({
    runDir,
    slurm,
    health: '/health',
    readyTimeoutMs: 400,
    stopTimeoutMs: 200,
    commands,
    record: (r) => records.push(r),
    previous,
  });
}

test('a job that gets its server healthy: the handle, the script kept in the cell directory, every step journaled', async (t) => {
  const port = await healthyServer(t);
  const { runDir, fake, records, executor } = setup(t, () => [
    { state: 'PENDING', reason: 'Resources', ms: 60 },
    { state: 'RUNNING', port },
  ]);
  const r = await executor.launch(request('c001'), never);
  assert.ok(r.ok, JSON.stringify(r));
  assert.equal(r.server.baseUrl, `http://127.0.0.1:${port}`);
  assert.equal(await r.server.fate!(), undefined, 'still running: no fate');
  const script = readFileSync(join(runDir, 'cells/c001/job.sbatch'), 'utf8');
  assert.match(script, /#SBATCH --gres=gpu:2/);
  await r.server.stop();
  assert.deepEqual(fake.cancelled, [fake.submitted[0]]);
  assert.deepEqual(
    records.map((x) => [x.event, x.state]),
    [
      ['submitted', undefined],
      ['running', 'RUNNING'],
      ['ended', 'CANCELLED'],
    ],
  );
  assert.equal(records[1].schedulerTime, '2026-12-01T10:00:00');
  await r.server.stop(); // twice is fine
  assert.equal(fake.cancelled.length, 1);
});

test("each way a job ends before its server is healthy is its own outcome, with Slurm's word for it", async (t) => {
  const cases: [string, string][] = [
    ['COMPLETED', 'launch-failed'],
    ['FAILED', 'launch-failed'],
    ['CANCELLED', 'cancelled'],
    ['TIMEOUT', 'time-limit'],
    ['DEADLINE', 'time-limit'],
    ['NODE_FAIL', 'node-failed'],
    ['BOOT_FAIL', 'node-failed'],
    ['OUT_OF_MEMORY', 'out-of-memory'],
    ['PREEMPTED', 'preempted'],
  ];
  for (const [state, outcome] of cases) {
    const { executor, fake, records } = setup(t, () => [
      { state: 'RUNNING', ms: 40 },
      { state, reason: 'NonZeroExitCode' },
    ]);
    const r = await executor.launch(request('c001'), never);
    assert.ok(!r.ok);
    assert.equal(r.outcome, outcome, state);
    assert.match(
      r.detail,
      new RegExp(`Slurm job \\d+ ended ${state} \\(NonZeroExitCode\\); JobState=${state} ExitCode=1:0`),
    );
    assert.deepEqual(fake.cancelled, [], 'an ended job is not cancelled');
    assert.equal(records.at(-1)?.event, 'ended');
    assert.equal(records.at(-1)?.state, state);
  }
});

test('PENDING past pending_timeout_s is not-scheduled (and cancelled); RUNNING but never healthy is timeout (and cancelled)', async (t) => {
  const pending = setup(t, () => [{ state: 'PENDING', reason: 'BeginTime' }]);
  const p = await pending.executor.launch(request('c001'), never);
  assert.ok(!p.ok);
  assert.equal(p.outcome, 'not-scheduled');
  assert.match(p.detail, /still PENDING \(BeginTime\) after 0\.3 s/);
  assert.equal(pending.fake.cancelled.length, 1);
  const silent = setup(t, () => [{ state: 'RUNNING' }]); // never writes where it listens
  const s = await silent.executor.launch(request('c002'), never);
  assert.ok(!s.ok);
  assert.equal(s.outcome, 'timeout');
  assert.match(s.detail, /its server never said where it listens/);
  assert.equal(silent.fake.cancelled.length, 1);
  assert.equal(silent.records.at(-1)?.state, 'CANCELLED');
});

test("a job ended under the probe (an outside scancel, a node failure, preemption) is the cell's fate", async (t) => {
  const port = await healthyServer(t);
  for (const [state, outcome] of [
    ['CANCELLED', 'cancelled'],
    ['NODE_FAIL', 'node-failed'],
    ['PREEMPTED', 'preempted'],
  ] as const) {
    const { executor, fake } = setup(t, () => [{ state: 'RUNNING', port }]);
    const r = await executor.launch(request('c001'), never);
    assert.ok(r.ok);
    fake.force(fake.submitted[0], state);
    const fate = await r.server.fate!();
    assert.equal(fate?.outcome, outcome);
    await r.server.stop();
  }
});

test('sbatch refusing, a controller that stops answering, a job Slurm forgets: launch-failed with what happened', async (t) => {
  const refused = setup(t, () => [{ state: 'RUNNING' }]);
  refused.fake.refuse = 'Batch job submission failed: Invalid partition name specified';
  const a = await refused.executor.launch(request('c001'), never);
  assert.ok(!a.ok);
  assert.equal(a.outcome, 'launch-failed');
  assert.match(a.detail, /sbatch refused the job: .*Invalid partition name/);

  const down = setup(t, () => [{ state: 'PENDING' }], {
    unavailableLimitMs: 150,
    slurm: { ...slurm, pending_timeout_s: 60 },
  });
  down.fake.down = true;
  const b = await down.executor.launch(request('c001'), never);
  assert.ok(!b.ok);
  assert.match(b.detail, /Slurm does not answer: squeue: error: Unable to contact slurm controller/);

  const forgotten = setup(t, () => [{ state: 'PENDING' }], { slurm: { ...slurm, pending_timeout_s: 60 } });
  const launching = forgotten.executor.launch(request('c001'), never);
  await new Promise((r) => setTimeout(r, 50));
  forgotten.fake.jobs.clear();
  const c = await launching;
  assert.ok(!c.ok);
  assert.match(c.detail, /Slurm does not know job \d+/);
});

test('resume: a job of the killed run still running is re-attached to (no second sbatch); one nothing asks for again is cancelled at the end', async (t) => {
  const port = await healthyServer(t);
  const first = setup(t, () => [{ state: 'RUNNING', port }]);
  // the killed run submitted three jobs; then faultline died (no ended records)
  const jobs = await Promise.all(
    ['c001', 'c002', 'c003'].map((id, i) => first.executor.launch(request(id, { a: String(i) }), never)),
  );
  assert.ok(jobs.every((j) => j.ok));
  const open = first.records.filter((r) => r.event === 'submitted');
  first.fake.force(first.fake.submitted[2], 'NODE_FAIL'); // this one died meanwhile
  const records: JobRecord[] = [];
  const runDir = mkdtempSync(join(tmpdir(), 'fl-slurm-unit-'));
  t.after(() => rmSync(runDir, { recursive: true, force: true }));
  const resumed = resumedExecutor(runDir, first.fake, open, records);
  const again = await resumed.launch(request('c009', { a: '0' }), never);
  assert.ok(again.ok);
  assert.equal(first.fake.submitted.length, 3, 're-attached, not submitted again');
  // the job that died meanwhile is journaled as ended; the running one as re-attached to
  assert.deepEqual(
    records.slice(0, 2).map((r) => [r.event, r.job, r.state]),
    [
      ['ended', first.fake.submitted[2], 'NODE_FAIL'],
      ['adopted', first.fake.submitted[0], undefined],
    ],
  );
  assert.ok(
    existsSync(join(first.runDir, 'cells/c001/job.sbatch')),
    'the job keeps the directory of the cell that submitted it',
  );
  await again.server.stop();
  await resumed.close!();
  assert.ok(
    first.fake.cancelled.includes(first.fake.submitted[1]),
    'the job nothing re-attached to is cancelled when the run ends',
  );
  assert.ok(
    records.some((r) => r.event === 'ended' && r.job === first.fake.submitted[1] && r.state === 'CANCELLED'),
  );
});

test('resume cancels, before it submits anything, every job of the killed run it cannot re-attach to: no levels journaled, one the journal never heard of, all of them when Slurm did not answer', async (t) => {
  const port = await healthyServer(t);
  const { runDir, fake } = setup(t, () => [{ state: 'RUNNING', port }]);
  const tag = runTag(runDir);
  const ghostScript = join(runDir, 'ghost.sbatch');
  writeFileSync(ghostScript, `#!/bin/bash\n#SBATCH --job-name=fl-${tag}-c077\n`);
  const ghost = await fake.submit(ghostScript); // submitted just before a crash, never journaled
  const bare = await fake.submit(ghostScript);
  const previous: JobRecord[] = [
    { type: 'job', executor: 'slurm', event: 'submitted', job: bare, cell: 'c002', at: '' }, // no levels: nothing to match by
  ];
  const records: JobRecord[] = [];
  const resumed = resumedExecutor(runDir, fake, previous, records);
  const r = await resumed.launch(request('c010'), never);
  assert.ok(r.ok);
  assert.deepEqual(new Set(fake.cancelled.slice(0, 2)), new Set([ghost, bare]));
  assert.deepEqual(
    records
      .slice(0, 2)
      .map((x) => [x.event, x.job, x.state, x.by])
      .sort(),
    [
      ['ended', bare, 'CANCELLED', 'resume'],
      ['ended', ghost, 'CANCELLED', 'resume'],
    ].sort(),
  );
  assert.equal(records[2]?.event, 'submitted', 'the new job comes after the cancellations');
  await r.server.stop();
  await resumed.close!();

  // Slurm down as the run resumes: its open jobs are cancelled once it answers, never adopted blind
  const running = await fake.submit(ghostScript);
  fake.down = true;
  setTimeout(() => (fake.down = false), 100);
  const later: JobRecord[] = [];
  const killedRun: JobRecord[] = [
    {
      type: 'job',
      executor: 'slurm',
      event: 'submitted',
      job: running,
      cell: 'c003',
      levels: { a: 'on' },
      cellDir: runDir,
      at: '',
    },
  ];
  const third = resumedExecutor(runDir, fake, killedRun, later);
  const r3 = await third.launch(request('c011', { a: 'off' }), never);
  assert.ok(r3.ok);
  assert.ok(fake.cancelled.includes(running), `job ${running} left by the killed run is cancelled`);
  assert.ok(later.some((x) => x.event === 'ended' && x.job === running && x.by === 'resume'));
  await r3.server.stop();
  await third.close!();
});
