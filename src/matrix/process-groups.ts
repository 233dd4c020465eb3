/**
 * Process groups of the servers faultline started, and how to end them. Each server runs in
 * its own group (spawned detached), so a terminal's Ctrl-C does not reach it — and faultline
 * must: SIGTERM to the whole group, SIGKILL after a grace period, and a synchronous SIGKILL of
 * every group still registered when faultline's process exits for any reason but SIGKILL.
 */
import { readdirSync, readFileSync } from 'node:fs';

const live = new Set<number>();
let exitHookInstalled = false;

/** Remembers a group leader's pid; installs the exit hook on first use. */
export function registerGroup(pgid: number): void {
  live.add(pgid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', killAllGroupsNow);
  }
}

export function unregisterGroup(pgid: number): void {
  live.delete(pgid);
}

export function liveGroups(): number[] {
  return [...live];
}

/** SIGKILL to every registered group, synchronously (usable in an 'exit' handler). */
export function killAllGroupsNow(): void {
  for (const pgid of live) signalGroup(pgid, 'SIGKILL');
  live.clear();
}

export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: already gone
  }
}

/**
 * Whether any process of the group is still running. Zombies do not count: in a container
 * whose init does not reap, a dead grandchild can linger as a zombie forever.
 */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  if (process.platform !== 'linux') return true;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue;
    }
    // pid (comm) state ppid pgrp …; comm may contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z') return true;
  }
  return false;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitGone(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!groupAlive(pgid)) return true;
    await sleep(50);
  }
  return !groupAlive(pgid);
}

/** SIGTERM, wait up to graceMs, then SIGKILL; resolves once nothing of the group runs. */
export async function stopGroup(pgid: number, graceMs: number): Promise<{ killed: boolean }> {
  signalGroup(pgid, 'SIGTERM');
  let killed = false;
  if (!(await waitGone(pgid, graceMs))) {
    killed = true;
    signalGroup(pgid, 'SIGKILL');
    await waitGone(pgid, 5000);
  }
  unregisterGroup(pgid);
  return { killed };
}
