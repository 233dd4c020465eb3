/**
 * Which faultline process owns a run directory. The run and each resume record who runs them;
 * `--resume` and `--cleanup` refuse while that process still runs, so a second faultline never
 * appends to a live journal or stops the servers of a run still in progress. Identity is the pid
 * plus its start time and the boot id (Linux); where those cannot be read the check is skipped.
 */
import { UserError } from '../core/errors.js';
import type { JournalRecord, ProcessIdentity } from './journal.js';
import { bootId, readStat } from './proc-scan.js';

/** Run directories whose journal this process holds open. */
const openHere = new Set<string>();

export function markOpen(runDir: string, open: boolean): void {
  if (open) openHere.add(runDir);
  else openHere.delete(runDir);
}

export function currentProcess(): ProcessIdentity {
  const stat = readStat(process.pid);
  return { pid: process.pid, ...(stat ? { startTicks: stat.startTicks } : {}), ...(bootId() ? { bootId: bootId() } : {}) };
}

/** Whether the process is still the one recorded (not merely a process with its pid). */
export function stillRunning(id: ProcessIdentity, runDir: string): boolean {
  if (id.startTicks === undefined || id.bootId === undefined || id.bootId !== bootId()) return false;
  if (id.pid === process.pid) return openHere.has(runDir);
  const stat = readStat(id.pid);
  return stat !== undefined && stat.state !== 'Z' && stat.startTicks === id.startTicks;
}

/** The process that last took the run (its start or its latest resume). */
export function lastOwner(records: readonly JournalRecord[]): ProcessIdentity | undefined {
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i];
    if (r.type === 'run' || r.type === 'resume') return r.owner;
  }
  return undefined;
}

export function assertNotRunning(records: readonly JournalRecord[], runDir: string, doing: string): void {
  const owner = lastOwner(records);
  if (owner && stillRunning(owner, runDir))
    throw new UserError(`${runDir} is still being run by faultline (pid ${owner.pid}); cannot ${doing} it now`, {
      code: 'E_RUN_DIR',
      hint: `wait for it to finish, or stop it first: kill -INT ${owner.pid} (it stops its servers and leaves the journal)`,
    });
}
