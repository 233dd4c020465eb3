/**
 * Servers that outlived their run. The journal records each server's process group as it starts
 * and again once it is stopped; a group recorded but never stopped may still run if faultline was
 * killed (SIGKILL leaves no time to stop anything, and the reaper may have been killed with it).
 * `--resume` and `--cleanup` stop those, after checking that the group's processes are this run's:
 * the run's id in their environment, or a leader with the recorded start time. A process that
 * merely reuses a recorded pid is left alone.
 */
import type { JournalRecord } from './journal.js';
import { stopGroup } from './process-groups.js';
import { bootId, CAN_SCAN, environHas, groupAlive, groupMembers } from './proc-scan.js';

export const RUN_ID_ENV = 'FAULTLINE_MATRIX_RUN';

type ServerRecord = Extract<JournalRecord, { type: 'server' }>;

export interface Survivor {
  cell: string;
  pgid: number;
  /** Running members of the group that belong to the run. */
  pids: number[];
}

/** Groups the journal says were started and never stopped. */
export function unstoppedGroups(records: readonly JournalRecord[]): ServerRecord[] {
  const open = new Map<number, ServerRecord>();
  for (const r of records) {
    if (r.type === 'server') open.set(r.pgid, r);
    else if (r.type === 'server-stopped') open.delete(r.pgid);
  }
  return [...open.values()];
}

function runIdOf(records: readonly JournalRecord[]): string | undefined {
  const head = records[0];
  return head?.type === 'run' ? head.runId : undefined;
}

/** The members of a recorded group that are provably this run's (all of them where /proc cannot be read). */
function ownMembers(server: ServerRecord, runId: string | undefined): number[] {
  if (!CAN_SCAN) return groupAlive(server.pgid) ? [server.pgid] : [];
  const sameBoot = server.bootId !== undefined && server.bootId === bootId();
  return groupMembers(server.pgid)
    .filter((p) => {
      if (runId !== undefined && environHas(p.pid, `${RUN_ID_ENV}=${runId}`)) return true;
      return sameBoot && p.pid === server.pgid && p.startTicks === server.startTicks;
    })
    .map((p) => p.pid);
}

/** Recorded server groups of the run that still have running processes of the run. */
export function findSurvivors(records: readonly JournalRecord[]): Survivor[] {
  const runId = runIdOf(records);
  return unstoppedGroups(records).flatMap((server) => {
    const pids = ownMembers(server, runId);
    return pids.length ? [{ cell: server.cell, pgid: server.pgid, pids }] : [];
  });
}

/**
 * Stops every survivor (SIGTERM to its group, SIGKILL after graceMs) and returns them; `note`
 * is called for every recorded group found stopped, survivors or not, so the journal can say so.
 */
export async function stopSurvivors(records: readonly JournalRecord[], graceMs: number, note: (pgid: number) => void): Promise<Survivor[]> {
  const survivors = findSurvivors(records);
  await Promise.all(survivors.map((s) => stopGroup(s.pgid, graceMs)));
  for (const server of unstoppedGroups(records)) note(server.pgid);
  return survivors;
}
