/**
 * Each cell as one Kubernetes Job (+ a Service in front of its pod), through the official
 * client (@kubernetes/client-node, loaded only for this executor). The pod's readiness probe is
 * the plan's health check; once Ready, the cell's URL is the Service's cluster DNS name, so
 * faultline must run where that name resolves (in the cluster, e.g. as a Job itself). Waiting
 * for quota or a node past pending_timeout_s is not-scheduled; the Job's and pod's conditions
 * say the rest (cell-state.ts). Stopping a cell saves its pod's log to the cell directory and
 * deletes its Job (with its pods) and Service; the run deletes every object carrying its label
 * when it ends, and `--resume` re-attaches to the Jobs of an interrupted run still active.
 *
 * Tested against a fake API server (test/helpers/fake-kube-api.ts), never against a real
 * cluster: none can be started where faultline is built.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import type { Executor, LaunchRequest, LaunchResult, ServerFate } from '../../executor.js';
import type { KubernetesExecutorData } from '../executor-schema.js';
import { openJobs, ReattachableJobs, type JobRecord } from '../job-record.js';
import { runTag } from '../slurm/slurm-executor.js';
import { cellState, type CellState, type JobView, type PodView } from './cell-state.js';
import { defaultKubeConfig, deleteRunObjects } from './run-objects.js';
import { CELL_LABEL, cellManifests, manifestsYaml, objectName, RUN_LABEL } from './manifests.js';

export interface KubernetesExecutorOptions {
  runDir: string;
  kubernetes: KubernetesExecutorData;
  health: string;
  readyTimeoutMs: number;
  stopTimeoutMs: number;
  record?: (record: JobRecord) => void;
  previous?: readonly { type: string }[];
  /** The cluster to talk to (default: the kubeconfig, or the pod's service account in a cluster). */
  kubeConfig?: k8s.KubeConfig;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const nowIso = () => new Date().toISOString();
const notFound = (e: unknown): boolean => (e as { code?: number })?.code === 404;

interface Cell {
  name: string;
  cell: string;
  cellDir: string;
  cellLabel: string;
}

export function createKubernetesExecutor(options: KubernetesExecutorOptions): Executor {
  const k = options.kubernetes;
  const kc = options.kubeConfig ?? defaultKubeConfig(k.context);
  const batch = kc.makeApiClient(k8s.BatchV1Api);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const tag = runTag(options.runDir);
  const namespace = k.namespace;
  const tickMs = k.poll_s * 1000;
  const record = (r: Omit<JobRecord, 'type' | 'executor' | 'at'>): void =>
    options.record?.({
      type: 'job',
      executor: 'kubernetes',
      ...r,
      namespace,
      ...(k.context ? { context: k.context } : {}),
      at: nowIso(),
    });
  const adoptable = new ReattachableJobs<Cell>();
  const ready = findAdoptable();

  async function findAdoptable(): Promise<void> {
    for (const j of openJobs(options.previous ?? [], 'kubernetes')) {
      const job = await batch.readNamespacedJob({ name: j.job, namespace }).catch(() => undefined);
      const state = job ? cellState(job as JobView, await podsOf(j.cell.toLowerCase())) : undefined;
      if (state && state.kind !== 'ended' && j.levels && j.cellDir)
        adoptable.add(j.levels, {
          name: j.job,
          cell: j.cell,
          cellDir: j.cellDir,
          cellLabel: j.cell.toLowerCase(),
        });
      else
        record({
          event: 'ended',
          job: j.job,
          cell: j.cell,
          state: state?.kind === 'ended' ? state.outcome : 'gone',
        });
    }
  }

  async function podsOf(cellLabel: string): Promise<PodView[]> {
    const list = await core.listNamespacedPod({
      namespace,
      labelSelector: `${RUN_LABEL}=${tag},${CELL_LABEL}=${cellLabel}`,
    });
    return list.items as PodView[];
  }

  async function stateOf(c: Cell): Promise<CellState> {
    let job: JobView | undefined;
    try {
      job = (await batch.readNamespacedJob({ name: c.name, namespace })) as JobView;
    } catch (e) {
      if (!notFound(e)) throw e;
    }
    return cellState(job, job ? await podsOf(c.cellLabel) : []);
  }

  async function create(request: LaunchRequest): Promise<Cell | { error: string }> {
    const cellDir = join(options.runDir, 'cells', request.cellId);
    mkdirSync(cellDir, { recursive: true });
    const m = cellManifests({
      cellId: request.cellId,
      runTag: tag,
      levels: request.levels,
      argv: request.argv,
      env: request.env,
      gpus: request.gpuCount ?? 1,
      health: options.health,
      kubernetes: k,
    });
    writeFileSync(join(cellDir, 'manifests.yaml'), manifestsYaml(m));
    const name = objectName(tag, request.cellId);
    try {
      await batch.createNamespacedJob({ namespace, body: m.job as k8s.V1Job });
      await core.createNamespacedService({ namespace, body: m.service as k8s.V1Service });
    } catch (e) {
      await remove({ name, cell: request.cellId, cellDir, cellLabel: request.cellId.toLowerCase() });
      return { error: `the API server refused the cell's objects: ${apiMessage(e)}` };
    }
    record({ event: 'submitted', job: name, cell: request.cellId, levels: request.levels, cellDir });
    return { name, cell: request.cellId, cellDir, cellLabel: request.cellId.toLowerCase() };
  }

  async function saveLogs(c: Cell): Promise<void> {
    for (const pod of await podsOf(c.cellLabel).catch(() => [])) {
      const podName = pod.metadata?.name;
      if (!podName) continue;
      const log = await core
        .readNamespacedPodLog({ name: podName, namespace, container: 'server' })
        .catch((e: unknown) => `(no log: ${apiMessage(e)})`);
      writeFileSync(join(c.cellDir, `pod-${podName}.log`), String(log));
    }
  }

  /** Deletes the Job (its pods with it) and the Service; waits until the pods are gone. */
  async function remove(c: Cell): Promise<void> {
    const ignoreGone = (e: unknown) => {
      if (!notFound(e)) throw e;
    };
    await batch
      .deleteNamespacedJob({ name: c.name, namespace, propagationPolicy: 'Background' })
      .catch(ignoreGone);
    await core.deleteNamespacedService({ name: c.name, namespace }).catch(ignoreGone);
    const deadline = Date.now() + options.stopTimeoutMs + 60_000;
    while (Date.now() < deadline && (await podsOf(c.cellLabel).catch(() => [])).length > 0)
      await sleep(tickMs);
  }

  async function end(c: Cell, state: string): Promise<void> {
    await saveLogs(c);
    await remove(c);
    record({ event: 'ended', job: c.name, cell: c.cell, state });
  }

  async function untilReady(
    c: Cell,
    signal: AbortSignal,
  ): Promise<{ ok: true } | { ok: false; outcome: ServerFate['outcome']; detail: string }> {
    const since = Date.now();
    let startedAt: number | undefined;
    while (true) {
      if (signal.aborted)
        return { ok: false, outcome: 'launch-failed', detail: 'interrupted while starting' };
      let state: CellState;
      try {
        state = await stateOf(c);
      } catch (e) {
        return {
          ok: false,
          outcome: 'launch-failed',
          detail: `the API server did not answer: ${apiMessage(e)}`,
        };
      }
      if (state.kind === 'ended')
        return { ok: false, outcome: state.outcome, detail: `${state.detail} (logs: ${c.cellDir})` };
      if ((state.kind === 'starting' || state.kind === 'ready') && startedAt === undefined) {
        startedAt = Date.now();
        record({
          event: 'running',
          job: c.name,
          cell: c.cell,
          state: state.kind === 'ready' ? 'Ready' : 'scheduled',
          ...(state.node ? { node: state.node } : {}),
        });
      }
      if (state.kind === 'ready') return { ok: true };
      if (state.kind === 'waiting' && Date.now() - since > k.pending_timeout_s * 1000)
        return {
          ok: false,
          outcome: 'not-scheduled',
          detail: `Job ${c.name} still waiting after ${k.pending_timeout_s} s: ${state.why}`,
        };
      if (startedAt !== undefined && Date.now() - startedAt > options.readyTimeoutMs)
        return {
          ok: false,
          outcome: 'timeout',
          detail: `pod of Job ${c.name} not Ready (${options.health}) within ${Math.round(options.readyTimeoutMs / 1000)} s (logs: ${c.cellDir})`,
        };
      await sleep(tickMs);
    }
  }

  async function fate(c: Cell): Promise<ServerFate | undefined> {
    const state = await stateOf(c).catch((e: unknown) => ({
      kind: 'ended' as const,
      outcome: 'launch-failed' as const,
      detail: `the API server did not answer: ${apiMessage(e)}`,
    }));
    return state.kind === 'ended' ? { outcome: state.outcome, detail: state.detail } : undefined;
  }

  return {
    slots: k.parallel,
    async launch(request: LaunchRequest, signal: AbortSignal): Promise<LaunchResult> {
      await ready;
      if (signal.aborted)
        return { ok: false, outcome: 'launch-failed', detail: 'interrupted before the Job was created' };
      let c = adoptable.take(request.levels, request.cellId, (x) => x.name, record);
      if (!c) {
        const created = await create(request);
        if ('error' in created) return { ok: false, outcome: 'launch-failed', detail: created.error };
        c = created;
      }
      const cell = c;
      const waited = await untilReady(cell, signal);
      if (!waited.ok) {
        await end(cell, waited.outcome);
        return { ok: false, outcome: waited.outcome, detail: waited.detail };
      }
      let stopping: Promise<void> | undefined;
      return {
        ok: true,
        server: {
          baseUrl: `http://${cell.name}.${namespace}.svc:${k.port}`,
          stop: () => (stopping ??= end(cell, 'deleted by faultline')),
          fate: () => fate(cell),
        },
      };
    },
    async close(): Promise<void> {
      await ready;
      await Promise.all(
        adoptable.drain().map((c) => end(c, 'deleted by faultline (nothing re-attached to it)')),
      );
      // whatever else carries the run's label (a crash between create and record)
      await deleteRunObjects(batch, core, namespace, tag).catch(() => undefined);
    },
  };
}

export function apiMessage(e: unknown): string {
  const body = (e as { body?: unknown })?.body;
  if (typeof body === 'string') {
    try {
      const status = JSON.parse(body) as { message?: string };
      if (status.message) return status.message;
    } catch {
      return body.slice(0, 300);
    }
  }
  return (e as Error)?.message ?? String(e);
}
