/**
 * Runs of the matrix through the Slurm executor for the tests against the real cluster
 * (test/e2e/slurm.test.ts, test/slow/slurm-node-failure.test.ts), written for faultline: a
 * one-factor plan over stand-in servers, a stand-in reference outside Slurm, runMatrix
 * in-process as the CLI wires it, and a probe that lets the test act on a cell while it runs.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { MatrixProbe } from '../../src/matrix/cell-probe.js';
import { executorForPlan } from '../../src/matrix/executors/select.js';
import type { JobRecord } from '../../src/matrix/executors/job-record.js';
import { runTag } from '../../src/matrix/executors/slurm/slurm-executor.js';
import { createLocalExecutor, freePort } from '../../src/matrix/local-executor.js';
import { parsePlan } from '../../src/matrix/plan-load.js';
import { runMatrix, type MatrixRun } from '../../src/matrix/run.js';
import { repoRoot } from './cli.js';

export const standIn = fileURLToPath(new URL('../fixtures/matrix/stand-in-server.mjs', import.meta.url));
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
export function scratch(): string {
  const d = mkdtempSync(join(tmpdir(), 'fl-slurm-e2e-'));
  dirs.push(d);
  return d;
}

/** A plan of one factor x over stand-in servers: level a is plain, level b gets `b` (argv words). */
export function standInPlan(b: string[], executor: Record<string, unknown>, extra = ''): string {
  return `launch:
  argv: [${JSON.stringify(process.execPath)}, ${JSON.stringify(standIn)}, --port, "{port}", --pid-file, "{cell_dir}/pids.json"]
  ready_timeout_s: 4
  stop_timeout_s: 2
executor: ${JSON.stringify({ kind: 'slurm', time: '5', host: '127.0.0.1', poll_s: 0.3, gres_per_gpu: null, ...executor })}
factors:
  x:
    levels:
      a: {}
      b: { argv: ${JSON.stringify(b)} }
confirm: 0
${extra}`;
}

/** A stand-in reference outside Slurm (reference.url), so fault runs submit only the cells. */
export async function referenceServer(): Promise<string> {
  const port = await freePort('127.0.0.1');
  const child = spawn(process.execPath, [standIn, '--port', String(port)], { stdio: 'ignore' });
  after(() => child.kill('SIGKILL'));
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return `http://127.0.0.1:${port}`;
    } catch {
      // not up yet
    }
    await sleep(100);
  }
  throw new Error('the stand-in reference did not start');
}

export interface FaultRun {
  run: MatrixRun;
  records: JobRecord[];
  runDir: string;
  tag: string;
}

/** runMatrix in-process through the Slurm executor, as the CLI wires it; the probe is made for the run directory. */
export async function runThroughSlurm(
  planText: string,
  probeFor: (runDir: string) => MatrixProbe,
): Promise<FaultRun> {
  const runDir = scratch();
  const probe = probeFor(runDir);
  const file = join(runDir, 'plan.yaml');
  writeFileSync(file, planText);
  const plan = parsePlan(file, planText);
  const records: JobRecord[] = [];
  const local = createLocalExecutor({
    runDir,
    slots: 1,
    health: '/health',
    readyTimeoutMs: 1000,
    stopTimeoutMs: 1000,
  });
  const executor = await executorForPlan(plan, local, {
    runDir,
    cwd: repoRoot,
    record: (r) => records.push(r),
    resumed: [],
    slots: plan.executor.parallel,
    env: process.env,
  });
  const run = await runMatrix({ plan, executor, probe, shrinkSteps: 50 });
  return { run, records, runDir, tag: runTag(runDir) };
}

/** Asks the stand-in for its argv (so the server is really there), lets the test act on the cell, then says pass. */
export const argvProbe =
  (onProbe?: (cellDir: string, argv: string[]) => Promise<void>) =>
  (runDir: string): MatrixProbe => ({
    captureReference: async () => ({}),
    probeCell: async (url, context) => {
      const argv = (await (await fetch(`${url}/argv`)).json()) as string[];
      await onProbe?.(join(runDir, 'cells', context.cellId), argv);
      return { outcome: 'pass', corruptRate: 0, requests: 1 }; // says pass whatever happened: the executor must know better
    },
  });

export function slurmJobOf(cellDir: string): string {
  return (JSON.parse(readFileSync(join(cellDir, 'launch.json'), 'utf8')) as { slurmJob: string }).slurmJob;
}

export async function until<T>(
  what: string | (() => string),
  ms: number,
  fn: () => T | undefined | false,
  everyMs = 250,
): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = fn();
    if (v) return v;
    await sleep(everyMs);
  }
  throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
}
