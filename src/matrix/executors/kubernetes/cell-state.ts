/**
 * Where a cell's Job stands, read from the Job's conditions and its pod's status — the same
 * fields `kubectl describe` shows — and what each ending means for the cell. Names are the
 * API's: Job condition types and reasons (batch/v1 JobCondition), pod phases and conditions,
 * container waiting / terminated reasons, DisruptionTarget reasons (core/v1 PodCondition).
 */
import type { LaunchFailure } from '../../executor.js';

/** The parts of the API objects read here (the client's V1Job / V1Pod have many more). */
export interface JobView {
  spec?: { suspend?: boolean };
  status?: {
    active?: number;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}

export interface PodView {
  metadata?: { name?: string; deletionTimestamp?: unknown };
  spec?: { nodeName?: string };
  status?: {
    phase?: string;
    reason?: string;
    message?: string;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
    containerStatuses?: {
      name: string;
      ready?: boolean;
      state?: {
        waiting?: { reason?: string; message?: string };
        terminated?: { reason?: string; exitCode?: number; message?: string };
      };
    }[];
  };
}

export type CellState =
  | { kind: 'waiting'; why: string }
  | { kind: 'starting'; node?: string }
  | { kind: 'ready'; node?: string }
  | { kind: 'ended'; outcome: LaunchFailure; detail: string };

const IMAGE_FAILURES = new Set(['ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull']);
const CONFIG_FAILURES = new Set(['CreateContainerConfigError', 'CreateContainerError', 'RunContainerError']);
/** DisruptionTarget reasons: who took the pod away. */
const DISRUPTIONS: Record<string, LaunchFailure> = {
  PreemptionByScheduler: 'preempted',
  EvictionByEvictionAPI: 'preempted',
  TerminationByKubelet: 'preempted',
  DeletionByTaintManager: 'node-failed',
  DeletionByPodGC: 'node-failed',
};

const cond = (
  list: { type: string; status: string; reason?: string; message?: string }[] | undefined,
  type: string,
) => list?.find((c) => c.type === type && c.status === 'True');

/** `job` undefined: the Job is gone (deleted by someone other than the run). */
export function cellState(job: JobView | undefined, pods: PodView[]): CellState {
  if (!job) return { kind: 'ended', outcome: 'cancelled', detail: 'the Job was deleted (not by faultline)' };
  const pod = pods[0];
  const status = pod?.status;
  const disruption = cond(status?.conditions, 'DisruptionTarget');
  if (disruption?.reason && DISRUPTIONS[disruption.reason])
    return {
      kind: 'ended',
      outcome: DISRUPTIONS[disruption.reason],
      detail: `pod ${pod?.metadata?.name}: ${disruption.reason}${disruption.message ? `: ${disruption.message}` : ''}`,
    };
  for (const c of status?.containerStatuses ?? []) {
    const waiting = c.state?.waiting;
    if (waiting?.reason && IMAGE_FAILURES.has(waiting.reason))
      return {
        kind: 'ended',
        outcome: 'image-pull-failed',
        detail: `container ${c.name}: ${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}`,
      };
    if (waiting?.reason && CONFIG_FAILURES.has(waiting.reason))
      return {
        kind: 'ended',
        outcome: 'launch-failed',
        detail: `container ${c.name}: ${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}`,
      };
    const done = c.state?.terminated;
    if (done)
      return done.reason === 'OOMKilled'
        ? {
            kind: 'ended',
            outcome: 'out-of-memory',
            detail: `container ${c.name} was OOMKilled (exit code ${done.exitCode})`,
          }
        : {
            kind: 'ended',
            outcome: 'launch-failed',
            detail: `container ${c.name} exited with code ${done.exitCode}${done.reason ? ` (${done.reason})` : ''}${done.message ? `: ${done.message}` : ''}`,
          };
  }
  if (status?.reason === 'Evicted')
    return { kind: 'ended', outcome: 'preempted', detail: `pod evicted: ${status.message ?? ''}`.trim() };
  if (status?.reason === 'NodeLost' || status?.phase === 'Unknown')
    return {
      kind: 'ended',
      outcome: 'node-failed',
      detail: `pod ${pod?.metadata?.name}: its node stopped reporting (${status?.reason ?? status?.phase})`,
    };
  const failed = cond(job.status?.conditions, 'Failed');
  if (failed)
    return {
      kind: 'ended',
      outcome: failed.reason === 'DeadlineExceeded' ? 'time-limit' : 'launch-failed',
      detail: `Job failed: ${failed.reason ?? ''}${failed.message ? `: ${failed.message}` : ''}`,
    };
  if (cond(job.status?.conditions, 'Complete'))
    return {
      kind: 'ended',
      outcome: 'launch-failed',
      detail: 'the server exited (Job Complete) before it served',
    };
  if (pod?.metadata?.deletionTimestamp)
    return {
      kind: 'ended',
      outcome: 'cancelled',
      detail: `pod ${pod.metadata.name} is being deleted (not by faultline)`,
    };
  if (job.spec?.suspend)
    return { kind: 'waiting', why: 'the Job is suspended (Kueue has not admitted it: no quota yet)' };
  if (!pod) return { kind: 'waiting', why: 'no pod yet' };
  const scheduled = status?.conditions?.find((c) => c.type === 'PodScheduled');
  if (scheduled?.status === 'False')
    return {
      kind: 'waiting',
      why: `${scheduled.reason ?? 'not scheduled'}${scheduled.message ? `: ${scheduled.message}` : ''}`,
    };
  // scheduled, containers being created or the image pulled (a first ErrImagePull is retried)
  if (status?.phase === 'Pending') return { kind: 'starting', node: pod.spec?.nodeName };
  if (status?.phase === 'Running')
    return cond(status.conditions, 'Ready')
      ? { kind: 'ready', node: pod.spec?.nodeName }
      : { kind: 'starting', node: pod.spec?.nodeName };
  if (status?.phase === 'Failed')
    return {
      kind: 'ended',
      outcome: 'launch-failed',
      detail: `pod failed: ${status.reason ?? ''} ${status.message ?? ''}`.trim(),
    };
  if (status?.phase === 'Succeeded')
    return {
      kind: 'ended',
      outcome: 'launch-failed',
      detail: 'the server exited (pod Succeeded) before it served',
    };
  return { kind: 'waiting', why: `pod phase ${status?.phase ?? 'unknown'}` };
}
