/**
 * The reaper: a small process that outlives faultline to stop its servers when faultline dies
 * without the chance to (SIGKILL, the OOM killer, a crash in native code). faultline starts it
 * detached, in a session of its own, with a pipe on its stdin, and writes one line per change:
 *
 *   +PGID GRACE_MS    a server group was started; stop it with SIGTERM, SIGKILL after GRACE_MS
 *   -PGID             faultline stopped that group itself
 *
 * The kernel closes the pipe whenever faultline's process ends, however it ends. At end of
 * input every group still listed gets SIGTERM, then SIGKILL after its grace period, and the
 * reaper exits. After a clean run the list is empty and it exits at once.
 * usage: node reaper.js   (started by reaper-link.ts; not a user command)
 */
import { createInterface } from 'node:readline';
import { groupAlive, signalGroup, waitGroupGone } from './proc-scan.js';

const groups = new Map<number, number>();

function apply(line: string): void {
  const m = /^([+-])(\d+)(?: (\d+))?$/.exec(line.trim());
  if (!m) return;
  const pgid = Number(m[2]);
  if (m[1] === '+') groups.set(pgid, Number(m[3] ?? 5000));
  else groups.delete(pgid);
}

async function stopAll(): Promise<void> {
  const listed = [...groups].filter(([pgid]) => groupAlive(pgid));
  for (const [pgid] of listed) signalGroup(pgid, 'SIGTERM');
  await Promise.all(
    listed.map(async ([pgid, graceMs]) => {
      if (!(await waitGroupGone(pgid, graceMs))) {
        signalGroup(pgid, 'SIGKILL');
        await waitGroupGone(pgid, 5000);
      }
    }),
  );
}

// Terminal signals cannot reach this session; a stray one must not end the watch early.
for (const s of ['SIGINT', 'SIGHUP', 'SIGQUIT', 'SIGTERM'] as const) process.on(s, () => {});
const lines = createInterface({ input: process.stdin });
lines.on('line', apply);
lines.on('close', () => {
  void stopAll().then(() => process.exit(0));
});
