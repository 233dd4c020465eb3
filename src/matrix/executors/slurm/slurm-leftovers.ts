/**
 * Slurm jobs a run left behind when faultline could not cancel them (SIGKILL, the OOM killer, a
 * crash past every handler): the journal's jobs not recorded as ended, and any job squeue lists
 * under the run's name prefix (one submitted just before the crash, before the journal heard of
 * it). `faultline matrix --cleanup` cancels all of them; a resumed run cancels those it does not
 * re-attach to. Either waits until Slurm says each ended, so that squeue is empty afterwards.
 */
import { openJobs, type JobRecord } from '../job-record.js';
import type { SlurmCommands, SlurmJobState } from './slurm-commands.js';
import { isTerminal } from './slurm-states.js';

export interface LeftSlurmJob {
  id: string;
  cell: string;
  levels?: Record<string, string>;
  cellDir?: string;
}

/** What the journal or squeue names as a job of the run that may still be queued or running. */
export async function leftSlurmJobs(
  records: readonly { type: string }[],
  tag: string,
  commands: SlurmCommands,
): Promise<LeftSlurmJob[]> {
  const prefix = `fl-${tag}-`;
  const left = new Map<string, LeftSlurmJob>(
    openJobs(records, 'slurm').map((j) => [
      j.job,
      {
        id: j.job,
        cell: j.cell,
        ...(j.levels ? { levels: j.levels } : {}),
        ...(j.cellDir ? { cellDir: j.cellDir } : {}),
      },
    ]),
  );
  for (const named of await commands.namedJobs(prefix))
    if (!left.has(named.id)) left.set(named.id, { id: named.id, cell: named.name.slice(prefix.length) });
  return [...left.values()];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * scancel every job, then ask until each has ended (or squeue and accounting no longer know it)
 * or `waitMs` passed; the last state seen of each (undefined: never answered).
 */
export async function cancelSlurmJobs(
  commands: SlurmCommands,
  ids: readonly string[],
  waitMs: number,
  pollMs = 500,
): Promise<Map<string, SlurmJobState | undefined>> {
  const last = new Map<string, SlurmJobState | undefined>(ids.map((id) => [id, undefined]));
  if (ids.length === 0) return last;
  try {
    await commands.cancel(ids);
  } catch {
    // the controller did not answer: the states below say whether the jobs ended anyway
  }
  const waiting = new Set(ids);
  const deadline = Date.now() + waitMs;
  while (waiting.size > 0 && Date.now() < deadline) {
    const states = await commands.query([...waiting]).catch(() => undefined);
    if (states)
      for (const id of [...waiting]) {
        const state = states.get(id) ?? (await commands.accounting(id).catch(() => undefined));
        if (state) last.set(id, state);
        // forgotten by squeue with no accounting: it is not queued or running any more
        if (!state || isTerminal(state.state)) waiting.delete(id);
      }
    if (waiting.size > 0) await sleep(pollMs);
  }
  return last;
}

/** The `ended` record of a job cancelled (or found ended) by `by`. */
export function endedRecord(
  job: LeftSlurmJob,
  state: SlurmJobState | undefined,
  by: 'resume' | 'cleanup',
): Omit<JobRecord, 'type' | 'executor' | 'at'> {
  return {
    event: 'ended',
    job: job.id,
    cell: job.cell,
    state: state?.state ?? 'unknown',
    ...(state?.end ? { schedulerTime: state.end } : {}),
    by,
  };
}

export interface CancelledJob {
  job: string;
  cell: string;
  /** The state it ended in (unknown: Slurm never said). */
  state: string;
  /** Whether it was still queued or running when the cleanup began. */
  wasLive: boolean;
}

/**
 * `--cleanup` for a run that used Slurm: cancels every job it left, journals each as ended by
 * the cleanup.
 */
export async function cleanUpSlurmJobs(
  records: readonly { type: string }[],
  tag: string,
  commands: SlurmCommands,
  record: (r: Omit<JobRecord, 'type' | 'executor' | 'at'>) => void,
  waitMs: number,
): Promise<CancelledJob[]> {
  const left = await leftSlurmJobs(records, tag, commands);
  if (left.length === 0) return [];
  const ids = left.map((j) => j.id);
  const before = await commands.query(ids);
  const states = await cancelSlurmJobs(commands, ids, waitMs);
  return left.map((job) => {
    const state = states.get(job.id);
    record(endedRecord(job, state, 'cleanup'));
    const was = before.get(job.id);
    return {
      job: job.id,
      cell: job.cell,
      state: state?.state ?? 'unknown',
      wasLive: was !== undefined && !isTerminal(was.state),
    };
  });
}
