/**
 * What the operating system says about processes and process groups, read without spawning
 * anything (an 'exit' handler and the reaper must work synchronously or nearly so). On Linux it
 * reads /proc: each process's group, state and start time, and its environment, which is what
 * tells a server of this run from an unrelated process that got a reused pid. Elsewhere only
 * `kill(-pgid, 0)` is available, and a group answers "alive" while the kernel knows it.
 */
import { readdirSync, readFileSync } from 'node:fs';

export const CAN_SCAN = process.platform === 'linux';

export interface ProcStat {
  pid: number;
  /** R, S, D, Z (zombie), T … */
  state: string;
  ppid: number;
  pgrp: number;
  /** Start time in clock ticks after boot: with the boot id, a process's identity across pid reuse. */
  startTicks: number;
}

/** One process's /proc/PID/stat, or undefined when it is gone (or this is not Linux). */
export function readStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
  // cutime cstime priority nice threads itrealvalue starttime …; comm may hold spaces and ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { pid, state: fields[0], ppid: Number(fields[1]), pgrp: Number(fields[2]), startTicks: Number(fields[19]) };
}

/** Every process whose /proc entry could be read. */
export function listProcesses(): ProcStat[] {
  if (!CAN_SCAN) return [];
  const out: ProcStat[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    if (stat) out.push(stat);
  }
  return out;
}

/** The running (non-zombie) members of a process group. */
export function groupMembers(pgid: number): ProcStat[] {
  return listProcesses().filter((p) => p.pgrp === pgid && p.state !== 'Z');
}

let cachedBootId: string | undefined | null = null;

/** This boot's id: start times compare only within one boot. */
export function bootId(): string | undefined {
  if (cachedBootId === null) {
    try {
      cachedBootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      cachedBootId = undefined;
    }
  }
  return cachedBootId;
}

/** Whether the process's environment holds `entry` ("NAME=value"); undefined when it cannot be read. */
export function environHas(pid: number, entry: string): boolean | undefined {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(entry);
  } catch {
    return undefined;
  }
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
  if (!CAN_SCAN) return true;
  return groupMembers(pgid).length > 0;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves true once nothing of the group runs, false if something still does after `ms`. */
export async function waitGroupGone(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!groupAlive(pgid)) return true;
    await sleep(50);
  }
  return !groupAlive(pgid);
}
