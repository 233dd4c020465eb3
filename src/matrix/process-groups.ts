/**
 * Process groups of the servers faultline started, and how to end them. Each server runs in
 * its own group (spawned detached), so a terminal's Ctrl-C does not reach it — and faultline
 * must: SIGTERM to the whole group, SIGKILL after a grace period, and a synchronous SIGKILL of
 * every group still registered when faultline's process exits. A death that runs no JavaScript
 * (SIGKILL) is covered by the reaper (reaper.ts), told of every group registered here.
 */
import { reaperForget, reaperWatch } from './reaper-link.js';
import { signalGroup, waitGroupGone } from './proc-scan.js';

export { groupAlive, signalGroup } from './proc-scan.js';

const live = new Set<number>();
let exitHookInstalled = false;

/** Remembers a group leader's pid; installs the exit hook on first use; tells the reaper. */
export function registerGroup(pgid: number, graceMs = 5000): void {
  live.add(pgid);
  reaperWatch(pgid, graceMs);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', killAllGroupsNow);
  }
}

export function unregisterGroup(pgid: number): void {
  if (live.delete(pgid)) reaperForget(pgid);
}

export function liveGroups(): number[] {
  return [...live];
}

/** SIGKILL to every registered group, synchronously (usable in an 'exit' handler). */
export function killAllGroupsNow(): void {
  for (const pgid of live) signalGroup(pgid, 'SIGKILL');
  live.clear();
}

/** SIGTERM, wait up to graceMs, then SIGKILL; resolves once nothing of the group runs. */
export async function stopGroup(pgid: number, graceMs: number): Promise<{ killed: boolean }> {
  signalGroup(pgid, 'SIGTERM');
  let killed = false;
  if (!(await waitGroupGone(pgid, graceMs))) {
    killed = true;
    signalGroup(pgid, 'SIGKILL');
    await waitGroupGone(pgid, 5000);
  }
  unregisterGroup(pgid);
  return { killed };
}
