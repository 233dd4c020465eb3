import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { startFakeKubeApi, type Step } from '../../../../test/helpers/fake-kube-api.js';
import type { LaunchRequest } from '../../executor.js';
import { kubernetesExecutorSchema } from '../executor-schema.js';
import type { JobRecord } from '../job-record.js';
import { BatchV1Api, type V1Job } from '@kubernetes/client-node';
import { cleanUpSchedulerJobs } from '../left-jobs.js';
import { runTag } from '../slurm/slurm-executor.js';
import { createKubernetesExecutor } from './kubernetes-executor.js';
import { cellManifests } from './manifests.js';

const never = new AbortController().signal;
const subset = JSON.parse(
  readFileSync(
    fileURLToPath(new URL('../../../../test/fixtures/kubernetes/schema-subset.json', import.meta.url)),
    'utf8',
  ),
) as Record<string, object>;

function request(cellId: string, levels: Record<string, string> = { kv: 'fp8' }): LaunchRequest {
  return {
    cellId,
    config: [],
    levels,
    argv: ['vllm', 'serve', 'm', '--port', '{port}'],
    env: { HF_HOME: '/cache' },
    slot: 0,
    gpuCount: 2,
  };
}

async function setup(
  t: { after(fn: () => unknown): void },
  script: (job: string) => Step[],
  over: Record<string, unknown> = {},
  previous: JobRecord[] = [],
  admit = true,
) {
  const api = await startFakeKubeApi(script, { admit });
  t.after(() => api.close());
  const runDir = mkdtempSync(join(tmpdir(), 'fl-k8s-'));
  t.after(() => rmSync(runDir, { recursive: true, force: true }));
  const records: JobRecord[] = [];
  const kubernetes = kubernetesExecutorSchema.parse({
    kind: 'kubernetes',
    namespace: 'sweeps',
    image: 'vllm/vllm-openai:v0.23.1',
    poll_s: 0.02,
    pending_timeout_s: 0.3,
    queue: 'gpu',
    ...over,
  });
  const executor = createKubernetesExecutor({
    runDir,
    kubernetes,
    health: '/health',
    readyTimeoutMs: 300,
    stopTimeoutMs: 100,
    kubeConfig: api.kubeConfig,
    record: (r) => records.push(r),
    previous,
  });
  return { api, runDir, records, executor };
}

test('a cell through the real client: Job + Service created (and valid against the v1.32.2 schemas), Ready → the Service URL, stop saves the log and deletes both', async (t) => {
  const { api, runDir, records, executor } = await setup(t, () => [
    { status: 'unschedulable', ms: 60 },
    { status: 'creating', ms: 60 },
    { status: 'ready' },
  ]);
  const r = await executor.launch(request('c001'), never);
  assert.ok(r.ok, JSON.stringify(r));
  assert.match(r.server.baseUrl, /^http:\/\/fl-[0-9a-f]{8}-c001\.sweeps\.svc:8000$/);
  const posted = api.requests.filter((q) => q.method === 'POST');
  assert.deepEqual(
    posted.map((q) => q.path),
    ['/apis/batch/v1/namespaces/sweeps/jobs', '/api/v1/namespaces/sweeps/services'],
  );
  // what the client put on the wire is what the schema accepts
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats.default(ajv, ['date-time']);
  ajv
    .addFormat('int32', { type: 'number', validate: () => true })
    .addFormat('int64', { type: 'number', validate: () => true });
  assert.equal(ajv.validate(subset.job, posted[0].body), true, JSON.stringify(ajv.errors));
  assert.equal(ajv.validate(subset.service, posted[1].body), true, JSON.stringify(ajv.errors));
  const sent = posted[0].body as {
    metadata: { labels: Record<string, string> };
    spec: { suspend?: boolean };
  };
  assert.equal(sent.metadata.labels['kueue.x-k8s.io/queue-name'], 'gpu');
  assert.equal(sent.spec.suspend, true, 'created suspended, for Kueue to admit');
  assert.equal(await r.server.fate!(), undefined, 'Ready: no fate');
  await r.server.stop();
  assert.equal(api.jobs.size, 0);
  assert.equal(api.services.size, 0);
  assert.match(
    readFileSync(
      join(
        runDir,
        'cells/c001/pod-' +
          `${[...api.requests].find((q) => q.path.endsWith('/log'))!.path.split('/')[6]}.log`,
      ),
      'utf8',
    ),
    /server log of/,
  );
  assert.ok(existsSync(join(runDir, 'cells/c001/manifests.yaml')));
  assert.deepEqual(
    records.map((x) => x.event),
    ['submitted', 'running', 'ended'],
  );
});

test('each way a pod or Job ends is its own outcome: ImagePullBackOff, OOMKilled, a crash, DeadlineExceeded, a Job deleted by someone else', async (t) => {
  const cases: [
    Step[],
    string,
    RegExp,
    ((api: Awaited<ReturnType<typeof setup>>['api'], job: string) => void)?,
  ][] = [
    [[{ status: 'image-pull-backoff' }], 'image-pull-failed', /ImagePullBackOff: Back-off pulling image/],
    [
      [{ status: 'creating', ms: 30 }, { status: 'oomkilled' }],
      'out-of-memory',
      /OOMKilled \(exit code 137\)/,
    ],
    [
      [{ status: 'crashed' }],
      'launch-failed',
      /exited with code 2 \(Error\): vllm: error: unrecognized arguments/,
    ],
    [
      [{ status: 'running-not-ready' }],
      'time-limit',
      /DeadlineExceeded/,
      (api, job) => api.jobCondition(job, 'Failed', 'DeadlineExceeded'),
    ],
    [
      [{ status: 'running-not-ready' }],
      'cancelled',
      /the Job was deleted \(not by faultline\)/,
      (api, job) => api.deleteBehind(job),
    ],
  ];
  for (const [steps, outcome, detail, act] of cases) {
    const { api, executor } = await setup(t, () => steps);
    const launching = executor.launch(request('c002'), never);
    if (act) {
      while (api.jobs.size === 0) await new Promise((r) => setTimeout(r, 10));
      act(api, [...api.jobs.keys()][0]);
    }
    const r = await launching;
    assert.ok(!r.ok);
    assert.equal(r.outcome, outcome, r.detail);
    assert.match(r.detail, detail);
    assert.equal(api.jobs.size, 0, 'nothing of the cell is left');
  }
});

test("Unschedulable (or suspended by Kueue) past pending_timeout_s is not-scheduled; scheduled but never Ready is timeout; preemption and node loss under the probe are the cell's fate", async (t) => {
  const waiting = await setup(t, () => [{ status: 'unschedulable' }]);
  const a = await waiting.executor.launch(request('c001'), never);
  assert.ok(!a.ok);
  assert.equal(a.outcome, 'not-scheduled');
  assert.match(a.detail, /Unschedulable: 0\/4 nodes are available: 4 Insufficient nvidia\.com\/gpu/);
  const quota = await setup(t, () => [{ status: 'ready' }], {}, [], false);
  const q = await quota.executor.launch(request('c001'), never);
  assert.ok(!q.ok);
  assert.equal(q.outcome, 'not-scheduled');
  assert.match(q.detail, /suspended \(Kueue has not admitted it/);
  const slow = await setup(t, () => [{ status: 'running-not-ready' }]);
  const b = await slow.executor.launch(request('c001'), never);
  assert.ok(!b.ok);
  assert.equal(b.outcome, 'timeout');
  for (const [status, outcome] of [
    ['preempted', 'preempted'],
    ['node-lost', 'node-failed'],
  ] as const) {
    const s = await setup(t, () => [{ status: 'ready', ms: 150 }, { status }]);
    const r = await s.executor.launch(request('c003'), never);
    assert.ok(r.ok);
    await new Promise((res) => setTimeout(res, 200));
    assert.equal((await r.server.fate!())?.outcome, outcome);
    await r.server.stop();
  }
});

test("resume re-attaches to an active Job of the interrupted run; the run's end deletes every object with its label", async (t) => {
  const first = await setup(t, () => [{ status: 'ready' }]);
  const left = await first.executor.launch(request('c001', { kv: 'fp8' }), never);
  const other = await first.executor.launch(request('c002', { kv: 'bf16' }), never);
  assert.ok(left.ok && other.ok);
  const open = first.records.filter((r) => r.event === 'submitted');
  // the same API server, a new executor for the same run directory, as --resume makes
  const records: JobRecord[] = [];
  const kubernetes = kubernetesExecutorSchema.parse({
    kind: 'kubernetes',
    namespace: 'sweeps',
    image: 'x',
    poll_s: 0.02,
  });
  const resumed = createKubernetesExecutor({
    runDir: first.runDir,
    kubernetes,
    health: '/health',
    readyTimeoutMs: 300,
    stopTimeoutMs: 100,
    kubeConfig: first.api.kubeConfig,
    record: (r) => records.push(r),
    previous: open,
  });
  const posts = first.api.requests.filter((q) => q.method === 'POST').length;
  const again = await resumed.launch(request('c007', { kv: 'fp8' }), never);
  assert.ok(again.ok);
  assert.equal(
    first.api.requests.filter((q) => q.method === 'POST').length,
    posts,
    'no new Job: re-attached',
  );
  assert.equal(records[0].event, 'adopted');
  await again.server.stop();
  await resumed.close!();
  assert.equal(first.api.jobs.size, 0, 'the Job nothing re-attached to is deleted at the end');
  assert.equal(first.api.services.size, 0);
});

test('--cleanup after a SIGKILLed run: every object with the run label goes, in the namespace its journal recorded, and the open Jobs are journaled as ended by the cleanup', async (t) => {
  const { api, runDir, records } = await setup(t, () => [{ status: 'ready' }]);
  const first = createKubernetesExecutor({
    runDir,
    kubernetes: kubernetesExecutorSchema.parse({
      kind: 'kubernetes',
      namespace: 'sweeps',
      image: 'x',
      poll_s: 0.02,
    }),
    health: '/health',
    readyTimeoutMs: 300,
    stopTimeoutMs: 100,
    kubeConfig: api.kubeConfig,
    record: (r) => records.push(r),
  });
  const left = await first.launch(request('c001'), never); // never stopped: faultline was killed
  assert.ok(left.ok);
  assert.equal(records[0].namespace, 'sweeps', 'the journal says where the objects are');
  // a Job created just before the crash, never journaled, carries the run's label all the same
  const { job } = cellManifests({
    cellId: 'c002',
    runTag: runTag(runDir),
    levels: {},
    argv: ['srv'],
    env: {},
    gpus: 1,
    health: '/health',
    kubernetes: kubernetesExecutorSchema.parse({ kind: 'kubernetes', namespace: 'sweeps', image: 'x' }),
  });
  await api.kubeConfig
    .makeApiClient(BatchV1Api)
    .createNamespacedJob({ namespace: 'sweeps', body: job as V1Job });
  assert.equal(api.jobs.size, 2);
  const journaled: JobRecord[] = [];
  const done = await cleanUpSchedulerJobs(records, runDir, (r) => journaled.push(r), {
    kubeConfigFor: () => api.kubeConfig,
  });
  assert.equal(api.jobs.size, 0);
  assert.equal(api.services.size, 0);
  assert.deepEqual(done.slurm, []);
  assert.deepEqual(
    done.kubernetes
      .map((d) => [d.job.replace(/^fl-[0-9a-f]{8}-/, ''), d.cell, d.namespace, d.wasLive])
      .sort(),
    [
      ['c001', 'c001', 'sweeps', true],
      ['c002', 'c002', 'sweeps', true],
    ],
  );
  assert.deepEqual(
    journaled.map((r) => [r.executor, r.event, r.cell, r.by]),
    [['kubernetes', 'ended', 'c001', 'cleanup']],
  );
  assert.ok(
    api.requests.some((q) => q.method === 'DELETE' && q.path === '/apis/batch/v1/namespaces/sweeps/jobs'),
    'deleted by the run label (a collection delete), not name by name',
  );
});
