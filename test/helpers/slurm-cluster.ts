/**
 * The real Slurm the e2e tests use: scripts/slurm-local.sh's one-node cluster (or any cluster the
 * Slurm commands reach). Written for faultline.
 *
 * - slurmUnavailable(): why the cluster cannot run jobs now (undefined when it can).
 * - skipUnlessSlurm(): the test option that skips — loudly, with the reason and how to start
 *   the cluster — on a machine without one; under CI (CI=true) nothing is skipped, and a missing
 *   cluster fails the tests instead.
 * - withClusterLock(): one test file at a time on the cluster, across worktrees of this machine
 *   (the node-failure test stops slurmd, which would break anyone else's jobs).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { repoRoot } from './cli.js';

export const SLURM_LOCAL = join(repoRoot, 'scripts/slurm-local.sh');
const LOCK = '/tmp/faultline-slurm-e2e.lock';

function run(file: string, args: string[], timeout = 20_000): { ok: boolean; out: string } {
  const r = spawnSync(file, args, { encoding: 'utf8', timeout });
  return {
    ok: r.status === 0,
    out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error.message) : ''}`.trim(),
  };
}

export function slurmUnavailable(): string | undefined {
  const ping = run('scontrol', ['ping']);
  if (!ping.ok) return `scontrol ping: ${ping.out.split('\n')[0] || 'no answer'}`;
  const nodes = run('sinfo', ['--noheader', '--format=%T']);
  if (!nodes.ok) return `sinfo: ${nodes.out}`;
  if (!/\b(idle|mixed|allocated|completing)\b/.test(nodes.out))
    return `no node can run jobs (sinfo says: ${nodes.out.replace(/\n/g, ', ')})`;
  return undefined;
}

/** `{ skip }` for test(): a reason on a machine without Slurm, false under CI or with a cluster. */
export function skipUnlessSlurm(): { skip: string | false } {
  const why = slurmUnavailable();
  if (!why) return { skip: false };
  if (process.env.CI === 'true') return { skip: false }; // CI must run it: the test then fails on `why`
  const reason = `SKIPPED: no Slurm cluster reachable (${why}); start one with: sudo ${SLURM_LOCAL} start`;
  process.stderr.write(`\n*** ${reason} ***\n\n`);
  return { skip: reason };
}

export function assertSlurmUp(): void {
  const why = slurmUnavailable();
  if (why)
    throw new Error(
      `Slurm is needed and not reachable: ${why} (.ci/run starts it with scripts/slurm-local.sh start)`,
    );
}

function lockHolder(): number | undefined {
  try {
    return Number(readFileSync(join(LOCK, 'pid'), 'utf8')) || undefined;
  } catch {
    return undefined;
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

export async function withClusterLock<T>(fn: () => Promise<T>, waitMs = 15 * 60_000): Promise<T> {
  const deadline = Date.now() + waitMs;
  while (true) {
    try {
      mkdirSync(LOCK);
      writeFileSync(join(LOCK, 'pid'), String(process.pid));
      break;
    } catch {
      const holder = lockHolder();
      if (holder !== undefined && !alive(holder)) rmSync(LOCK, { recursive: true, force: true });
      else if (Date.now() > deadline)
        throw new Error(`the Slurm test cluster stayed locked by pid ${holder} (${LOCK})`);
      else await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/** Jobs squeue still lists (queued, running, completing) whose name starts with fl-<tag>-. */
export function queuedJobsOf(tag: string): string[] {
  const r = run('squeue', ['--noheader', '--format=%i|%j|%T']);
  if (!r.ok) throw new Error(`squeue: ${r.out}`);
  return r.out
    .split('\n')
    .filter((l) => l.split('|')[1]?.startsWith(`fl-${tag}-`))
    .map((l) => l.trim());
}

/** squeue --states=all's word for a job (ended ones too, while the controller remembers them). */
export function jobState(id: string): string {
  return run('squeue', ['--noheader', '--states=all', `--jobs=${id}`, '--format=%T']).out.trim();
}

export function slurmLocal(command: 'start' | 'stop-node'): void {
  const r = run('bash', [SLURM_LOCAL, command], 180_000);
  if (!r.ok) throw new Error(`slurm-local.sh ${command}: ${r.out}`);
}

export function scancel(id: string): void {
  const r = run('scancel', [id]);
  if (!r.ok) throw new Error(`scancel ${id}: ${r.out}`);
}

/** Holds the cluster lock from before the file's first test to after its last (nothing when skipped). */
export function holdClusterLockForFile(skip: string | false): void {
  let release: (() => void) | undefined;
  before(async () => {
    if (skip) return;
    await new Promise<void>((taken) => {
      void withClusterLock(() => new Promise<void>((done) => ((release = done), taken())));
    });
  });
  after(() => release?.());
}
