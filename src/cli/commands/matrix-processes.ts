/**
 * The matrix command's hold on its servers' processes: each server's process group goes into the
 * journal as it starts and as it stops, every server carries the run's id in its environment, and
 * servers that outlived an earlier faultline (killed with SIGKILL, say) are stopped by `--resume`
 * before it launches anything, or by `faultline matrix --cleanup RUN_DIR` on its own, which also
 * cancels the run's Slurm jobs and deletes its Kubernetes objects (a resumed run does that in its
 * executor, for the jobs it does not re-attach to).
 */
import { resolve } from 'node:path';
import { UserError } from '../../core/errors.js';
import { cleanUpSchedulerJobs, type SchedulerCleanup, type SchedulerCleanupOptions } from '../../matrix/executors/left-jobs.js';
import { Journal, type JournalRecord } from '../../matrix/journal.js';
import type { ServerGroupEvent } from '../../matrix/local-executor.js';
import { bootId, readStat } from '../../matrix/proc-scan.js';
import { stopSurvivors, type Survivor } from '../../matrix/survivors.js';
import type { CliIO } from '../io.js';

/** The executor's group events as journal records (a group that starts after the journal closed is still stopped by the run). */
export function journalServerGroups(journal: Journal): (event: ServerGroupEvent) => void {
  return (event) => {
    const at = new Date().toISOString();
    const stat = event.kind === 'started' ? readStat(event.pgid) : undefined;
    try {
      if (event.kind === 'started')
        journal.append({ type: 'server', cell: event.cellId, pgid: event.pgid, ...(stat ? { startTicks: stat.startTicks } : {}), ...(bootId() ? { bootId: bootId() } : {}), at });
      else journal.append({ type: 'server-stopped', pgid: event.pgid, at, by: 'run' });
    } catch {
      // the journal is closed: the run is over and stops its servers itself
    }
  };
}

export function describeSurvivors(survivors: readonly Survivor[]): string {
  return survivors.map((s) => `${s.cell} (process group ${s.pgid}: ${s.pids.length} process${s.pids.length === 1 ? '' : 'es'})`).join(', ');
}

/** Stops what an earlier faultline of this run left running; returns them (journaled as stopped). */
export async function stopLeftServers(records: readonly JournalRecord[], journal: Journal, graceMs: number, by: 'resume' | 'cleanup'): Promise<Survivor[]> {
  return stopSurvivors(records, graceMs, (pgid) => journal.append({ type: 'server-stopped', pgid, at: new Date().toISOString(), by }));
}

function describeSchedulerCleanup(runDir: string, done: SchedulerCleanup): string {
  const lines: string[] = [];
  const cancelled = done.slurm.filter((j) => j.wasLive);
  if (cancelled.length)
    lines.push(
      `faultline matrix --cleanup: cancelled ${cancelled.length} Slurm job(s) left by ${runDir}: ${cancelled.map((j) => `${j.job} (${j.cell}, ended ${j.state})`).join(', ')}`,
    );
  const deleted = done.kubernetes.filter((j) => j.wasLive);
  if (deleted.length)
    lines.push(
      `faultline matrix --cleanup: deleted ${deleted.length} Kubernetes Job(s) left by ${runDir}, with their pods and Services: ${deleted.map((j) => `${j.namespace}/${j.job} (${j.cell})`).join(', ')}`,
    );
  return lines.map((l) => `${l}\n`).join('');
}

/** `faultline matrix --cleanup RUN_DIR`: exit 0 whether or not anything was left running. */
export async function cleanupRun(dir: string, io: CliIO, graceMs = 10_000, schedulers: SchedulerCleanupOptions = {}): Promise<number> {
  const runDir = resolve(io.cwd, dir);
  const { journal, records } = Journal.reopen(runDir, 'clean up');
  try {
    const stopped = await stopLeftServers(records, journal, graceMs, 'cleanup');
    let jobs: SchedulerCleanup;
    try {
      jobs = await cleanUpSchedulerJobs(records, runDir, (r) => journal.append(r), { env: io.env, ...schedulers });
    } catch (e) {
      throw new UserError(`--cleanup ${dir}: the scheduler did not answer: ${(e as Error).message}`, {
        hint: 'jobs of the run may still be queued or running; run --cleanup again once the Slurm controller (or the Kubernetes API) answers',
        cause: e,
      });
    }
    const scheduled = describeSchedulerCleanup(runDir, jobs);
    io.out(
      stopped.length
        ? `faultline matrix --cleanup: stopped ${stopped.length} server(s) left running by ${runDir}: ${describeSurvivors(stopped)}\n${scheduled}`
        : scheduled ||
            `faultline matrix --cleanup: no server of ${runDir} is running${records.some((r) => r.type === 'job') ? ', and none of its scheduler jobs is queued or running' : ''}\n`,
    );
    return 0;
  } finally {
    journal.close();
  }
}
