/**
 * Each cell as one Slurm batch job (cells differ in GPU count, so not a job array): the script
 * (kept as RUN_DIR/cells/<cell>/job.sbatch) starts the server on its node and writes where it
 * listens to the cell directory on the shared file system; faultline probes it from where it
 * runs. The job's state decides what the cell is when no verdict can be had: PENDING past
 * pending_timeout_s is not-scheduled, NODE_FAIL is node-failed, a scancel from anyone else is
 * cancelled, and so on (slurm-states.ts); a server that runs but never gets healthy is timeout.
 *
 * Every job of the run is journaled (submitted, running, ended). Stopping a cell scancels its
 * job and waits until Slurm says it ended; Ctrl-C and any exit of faultline but SIGKILL scancel
 * every job still held. After a SIGKILL the jobs run on, and `--resume` re-attaches to those still
 * queued or running (matched by the cell's levels) instead of submitting them again; jobs that
 * nothing re-attached to are cancelled when the run ends.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../../core/package-root.js';
import type { Executor, LaunchFailure, LaunchRequest, LaunchResult, ServerFate } from '../../executor.js';
import type { SlurmExecutorData } from '../executor-schema.js';
import { openJobs, ReattachableJobs, type JobRecord } from '../job-record.js';
import { endpointFile, renderCellScript, SCRIPT_FILE } from './sbatch-script.js';
import {
  createSlurmCommands,
  SlurmUnavailable,
  type SlurmCommands,
  type SlurmJobState,
} from './slurm-commands.js';
import { cancelSlurmJobs, endedRecord, leftSlurmJobs, type LeftSlurmJob } from './slurm-leftovers.js';
import { SlurmPoller } from './slurm-poller.js';
import { isTerminal, outcomeOfEnded, RUNNING_STATES, WAITING_STATES } from './slurm-states.js';

export interface SlurmExecutorOptions {
  runDir: string;
  slurm: SlurmExecutorData;
  health: string;
  readyTimeoutMs: number;
  stopTimeoutMs: number;
  /** The server's working directory on the node (sbatch --chdir). */
  cwd?: string;
  /** The Slurm commands (tests pass a fake). */
  commands?: SlurmCommands;
  /** Journal hook for the jobs' records. */
  record?: (record: JobRecord) => void;
  /** Records of the run being resumed: jobs of it still queued or running are re-attached to. */
  previous?: readonly { type: string }[];
  /** How long a controller that does not answer is waited for before a cell gives up on it (default 2 minutes). */
  unavailableLimitMs?: number;
}
/** Time Slurm gets, past the plan's stop timeout, to end a cancelled job (its KillWait, the epilog). */
const END_GRACE_MS = 90_000;

interface Job {
  id: string;
  cell: string;
  cellDir: string;
  /** Polls in a row that found the job in neither squeue nor accounting. */
  unknownPolls?: number;
}

/** Polls a job may go unseen before it counts as forgotten (a controller can lag just after sbatch). */
const UNKNOWN_POLLS = 3;

interface Endpoint {
  host: string;
  port: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const nowIso = () => new Date().toISOString();

/** Names the run's jobs (fl-<tag>-<cell>): the same for a resumed run, which uses the same directory. */
export function runTag(runDir: string): string {
  return createHash('sha256').update(runDir).digest('hex').slice(0, 8);
}

function tail(path: string, lines = 6): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n').slice(-800);
  } catch {
    return '';
  }
}

function readEndpoint(path: string): Endpoint | undefined {
  try {
    const e = JSON.parse(readFileSync(path, 'utf8')) as Partial<Endpoint>;
    return typeof e.host === 'string' && typeof e.port === 'number'
      ? { host: e.host, port: e.port }
      : undefined;
  } catch {
    return undefined; // not written yet
  }
}

const urlOf = (e: Endpoint): string => `http://${e.host.includes(':') ? `[${e.host}]` : e.host}:${e.port}`;

export function createSlurmExecutor(options: SlurmExecutorOptions): Executor {
  const commands = options.commands ?? createSlurmCommands();
  const s = options.slurm;
  const pollMs = s.poll_s * 1000;
  const tickMs = Math.min(pollMs, 500);
  const poller = new SlurmPoller(commands, pollMs);
  const tag = runTag(options.runDir);
  const record = (r: Omit<JobRecord, 'type' | 'executor' | 'at'>): void =>
    options.record?.({ type: 'job', executor: 'slurm', ...r, at: nowIso() });
  const live = new Set<string>();
  const cancelAllNow = (): void => commands.cancelNow([...live]);
  process.on('exit', cancelAllNow);
  const adoptable = new ReattachableJobs<Job>();
  const ready = findAdoptable();

  /**
   * Jobs of the interrupted run still queued or running, by levels, to re-attach to; any other
   * job it left (no levels to match, Slurm not answering, one the journal never heard of) is
   * cancelled now, so that nothing of the earlier run runs beside this one's submissions.
   */
  async function findAdoptable(): Promise<void> {
    if ((options.previous ?? []).length === 0) return; // a fresh run
    const left = await leftSlurmJobs(options.previous ?? [], tag, commands).catch(() =>
      openJobs(options.previous ?? [], 'slurm').map((j) => ({
        id: j.job,
        cell: j.cell,
        levels: j.levels,
        cellDir: j.cellDir,
      })),
    );
    if (left.length === 0) return;
    const states = await commands.query(left.map((j) => j.id)).catch(() => undefined);
    const stale: LeftSlurmJob[] = [];
    for (const j of left) {
      const state = states?.get(j.id);
      if (state && !isTerminal(state.state) && j.levels && j.cellDir) {
        adoptable.add(j.levels, { id: j.id, cell: j.cell, cellDir: j.cellDir });
        live.add(j.id);
      } else if (states && (!state || isTerminal(state.state))) record(endedRecord(j, state, 'resume'));
      else stale.push(j); // still queued or running, or Slurm did not say
    }
    const ended = await cancelSlurmJobs(
      commands,
      stale.map((j) => j.id),
      Math.min(options.unavailableLimitMs ?? 120_000, options.stopTimeoutMs + END_GRACE_MS),
      tickMs,
    );
    for (const j of stale) record(endedRecord(j, ended.get(j.id), 'resume'));
  }

  async function submit(request: LaunchRequest): Promise<Job | { error: string }> {
    const cellDir = join(options.runDir, 'cells', request.cellId);
    mkdirSync(cellDir, { recursive: true });
    let script: string;
    try {
      script = renderCellScript({
        cellId: request.cellId,
        runTag: tag,
        levels: request.levels,
        argv: request.argv,
        env: request.env,
        cellDir,
        runDir: options.runDir,
        faultlineRoot: packageRoot,
        ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
        gpus: request.gpuCount ?? 1,
        slurm: s,
      });
    } catch (e) {
      return { error: (e as Error).message };
    }
    const scriptPath = join(cellDir, SCRIPT_FILE);
    writeFileSync(scriptPath, script, { mode: 0o755 });
    let id: string;
    try {
      id = await commands.submit(scriptPath);
    } catch (e) {
      return { error: `sbatch refused the job: ${(e as Error).message}` };
    }
    writeFileSync(
      join(cellDir, 'launch.json'),
      `${JSON.stringify({ cell: request.cellId, levels: request.levels, slurmJob: id, script: scriptPath }, null, 2)}\n`,
    );
    record({ event: 'submitted', job: id, cell: request.cellId, levels: request.levels, cellDir });
    return { id, cell: request.cellId, cellDir };
  }

  /** Why a job that ended did: its state, Slurm's reason and exit code, the end of its stderr. */
  async function endDetail(job: Job, state: SlurmJobState): Promise<string> {
    const described = await commands.describe(job.id).catch(() => undefined);
    const err = tail(join(job.cellDir, `slurm-${job.id}.err`));
    return `Slurm job ${job.id} ended ${state.state}${state.reason ? ` (${state.reason})` : ''}${described ? `; ${described}` : ''}${err ? `; stderr ends:\n${err}` : ''} (logs: ${job.cellDir})`;
  }

  /** The state now, or a failure when Slurm has not answered for too long / forgot the job. */
  async function stateOf(job: Job, fresh = false): Promise<SlurmJobState | { failure: string } | undefined> {
    try {
      const state = await poller.state(job.id, fresh);
      if (state) {
        job.unknownPolls = 0;
        return state;
      }
      job.unknownPolls = (job.unknownPolls ?? 0) + 1;
      if (job.unknownPolls < UNKNOWN_POLLS) return undefined;
      return {
        failure: `Slurm does not know job ${job.id} (not in squeue, and the cluster keeps no accounting of it)`,
      };
    } catch (e) {
      if (!(e instanceof SlurmUnavailable)) throw e;
      if (Date.now() - poller.lastAnswerAt > (options.unavailableLimitMs ?? 120_000))
        return { failure: `Slurm does not answer: ${e.message}` };
      return undefined; // no news this time
    }
  }

  type Waited =
    { ok: true; endpoint: Endpoint } | { ok: false; outcome: LaunchFailure; detail: string; ended: boolean };

  async function untilHealthy(job: Job, signal: AbortSignal): Promise<Waited> {
    const since = Date.now();
    let runningSince: number | undefined;
    while (true) {
      if (signal.aborted)
        return { ok: false, outcome: 'launch-failed', detail: 'interrupted while starting', ended: false };
      const state = await stateOf(job);
      if (state && 'failure' in state)
        return { ok: false, outcome: 'launch-failed', detail: state.failure, ended: false };
      if (state) {
        const ended = outcomeOfEnded(state.state);
        if (ended) return { ok: false, outcome: ended, detail: await endDetail(job, state), ended: true };
        if (RUNNING_STATES.has(state.state)) {
          if (runningSince === undefined) {
            runningSince = Date.now();
            record({
              event: 'running',
              job: job.id,
              cell: job.cell,
              state: state.state,
              node: state.node,
              ...(state.start ? { schedulerTime: state.start } : {}),
            });
          }
          const endpoint = readEndpoint(join(job.cellDir, endpointFile(job.id)));
          if (endpoint && (await healthy(endpoint))) return { ok: true, endpoint };
          if (Date.now() - runningSince > options.readyTimeoutMs)
            return {
              ok: false,
              outcome: 'timeout',
              detail: `Slurm job ${job.id} runs on ${state.node || '?'}, but ${endpoint ? `${urlOf(endpoint)}${options.health} never answered` : 'its server never said where it listens'} within ${Math.round(options.readyTimeoutMs / 1000)} s (logs: ${job.cellDir})`,
              ended: false,
            };
        } else if (
          WAITING_STATES.has(state.state) &&
          runningSince === undefined &&
          Date.now() - since > s.pending_timeout_s * 1000
        )
          return {
            ok: false,
            outcome: 'not-scheduled',
            detail: `Slurm job ${job.id} was still ${state.state}${state.reason ? ` (${state.reason})` : ''} after ${s.pending_timeout_s} s (executor.pending_timeout_s)`,
            ended: false,
          };
      }
      await sleep(tickMs);
    }
  }

  async function healthy(endpoint: Endpoint): Promise<boolean> {
    try {
      const res = await fetch(`${urlOf(endpoint)}${options.health}`, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      return res.ok;
    } catch {
      return false;
    }
  }

  /** scancel (unless it already ended) and wait until Slurm says it ended; journals the end. */
  async function end(job: Job, alreadyEnded?: SlurmJobState): Promise<void> {
    let last = alreadyEnded;
    if (!last) {
      try {
        await commands.cancel([job.id]);
      } catch {
        // the wait below tells whether it ended anyway
      }
      const deadline = Date.now() + options.stopTimeoutMs + END_GRACE_MS;
      while (Date.now() < deadline) {
        const state = await stateOf(job, true);
        if (state && 'failure' in state) break;
        if (state) {
          last = state;
          if (isTerminal(state.state)) break;
        }
        await sleep(tickMs);
      }
    }
    live.delete(job.id);
    poller.unwatch(job.id);
    record({
      event: 'ended',
      job: job.id,
      cell: job.cell,
      state: last?.state ?? 'unknown',
      ...(last?.end ? { schedulerTime: last.end } : {}),
    });
  }

  /** After the probe: whether the job ended under it (anyone's scancel, a node failure, preemption). */
  async function fate(job: Job): Promise<ServerFate | undefined> {
    const deadline = Date.now() + END_GRACE_MS;
    while (true) {
      const state = await stateOf(job, true);
      if (state && 'failure' in state) return { outcome: 'launch-failed', detail: state.failure };
      if (state && RUNNING_STATES.has(state.state)) return undefined;
      const ended = state && outcomeOfEnded(state.state);
      if (ended && state) return { outcome: ended, detail: await endDetail(job, state) };
      // COMPLETING (ending, for a reason not known yet), or no answer: ask again
      if (Date.now() > deadline)
        return {
          outcome: 'launch-failed',
          detail: `Slurm job ${job.id} left RUNNING (${state?.state ?? 'no answer'}) and did not end`,
        };
      await sleep(tickMs);
    }
  }

  return {
    slots: s.parallel,
    async launch(request: LaunchRequest, signal: AbortSignal): Promise<LaunchResult> {
      await ready;
      if (signal.aborted)
        return { ok: false, outcome: 'launch-failed', detail: 'interrupted before submission' };
      let job = adoptable.take(request.levels, request.cellId, (j) => j.id, record);
      if (!job) {
        const submitted = await submit(request);
        if ('error' in submitted) return { ok: false, outcome: 'launch-failed', detail: submitted.error };
        job = submitted;
        live.add(job.id);
      }
      const j = job;
      const waited = await untilHealthy(j, signal);
      if (!waited.ok) {
        const state = waited.ended ? await poller.state(j.id).catch(() => undefined) : undefined;
        await end(j, state);
        return { ok: false, outcome: waited.outcome, detail: waited.detail };
      }
      let stopping: Promise<void> | undefined;
      return {
        ok: true,
        server: {
          baseUrl: urlOf(waited.endpoint),
          stop: () => (stopping ??= end(j)),
          fate: () => fate(j),
        },
      };
    },
    async close(): Promise<void> {
      await ready;
      await Promise.all(adoptable.drain().map((j) => end(j)));
      process.off('exit', cancelAllNow);
    },
  };
}
