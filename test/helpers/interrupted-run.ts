/**
 * A matrix run on stand-in servers (test/fixtures/matrix/interrupt-parent.ts), stopped by real
 * signals once two servers (each with a child process) are up and being probed. Returns every
 * pid the servers wrote, so a test can check that none outlived what it sent.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const standIn = fileURLToPath(new URL('../fixtures/matrix/stand-in-server.mjs', import.meta.url));
const parent = fileURLToPath(new URL('../fixtures/matrix/interrupt-parent.ts', import.meta.url));
const tsxLoader = import.meta.resolve('tsx');

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Running, not a zombie. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Waits until none of the pids runs (true) or ms pass (false). */
export async function allGone(pids: number[], ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!pids.some(alive)) return true;
    await sleep(50);
  }
  return !pids.some(alive);
}

export function standInPlan(dir: string, extraServerArgs: string[] = []): string {
  const plan = join(dir, 'plan.yaml');
  writeFileSync(
    plan,
    `launch:
  argv: [${JSON.stringify(process.execPath)}, ${JSON.stringify(standIn)}, --port, "{port}", --pid-file, "{cell_dir}/pids.json", --spawn-child${extraServerArgs.map((a) => `, ${a}`).join('')}]
  ready_timeout_s: 20
  stop_timeout_s: 1
factors:
  a: { levels: { "off": {}, "x": { argv: [--a, x] }, "y": { argv: [--a, y] } } }
  b: { levels: { "off": {}, "on": { argv: [--b] } } }
strength: 2
executor: { parallel: 2 }
probe: { suite: short, window: 32, requests: 3, target_rate: 0.7, max_tokens: 4, timeout_s: 5 }
`,
  );
  return plan;
}

export interface InterruptedRun {
  dir: string;
  plan: string;
  runDir: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Every server and server-child pid written by the stand-ins. */
  pids: number[];
  /** Those running when the first signal was sent. */
  running: number[];
  reaper?: number;
}

/**
 * Starts the parent, waits for two servers being probed, calls `beforeSignals` (e.g. to kill the
 * reaper), then sends each signal 50 ms apart and waits for the parent to end.
 */
export async function interruptedRun(
  signals: NodeJS.Signals[],
  options: { serverArgs?: string[]; beforeSignals?: (run: { reaper?: number; parentPid: number; runDir: string }) => void | Promise<void> } = {},
): Promise<InterruptedRun> {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-interrupt-'));
  const plan = standInPlan(dir, options.serverArgs);
  const runDir = join(dir, 'run');
  const child = spawn(process.execPath, ['--import', tsxLoader, parent, plan, runDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (code, signal) => resolve([code, signal])));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Give up, but let the parent clean up its servers (a second SIGINT kills them at once).
      child.kill('SIGINT');
      setTimeout(() => child.kill('SIGINT'), 200);
      reject(new Error(`no probing started; stdout: ${stdout} stderr: ${stderr}`));
    }, 30_000);
    child.stdout.on('data', (d) => {
      stdout += d;
      if ((stdout.match(/PROBING/g) ?? []).length >= 2) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  const reaperMatch = /REAPER (\d+)/.exec(stdout);
  const reaper = reaperMatch ? Number(reaperMatch[1]) : undefined;
  const cellsDir = join(runDir, 'cells');
  const cellDirs = readdirSync(cellsDir).filter((c) => existsSync(join(cellsDir, c, 'pids.json')));
  const pids = cellDirs.flatMap((c) => Object.values(JSON.parse(readFileSync(join(cellsDir, c, 'pids.json'), 'utf8'))) as number[]);
  const running = pids.filter(alive);
  await options.beforeSignals?.({ reaper, parentPid: child.pid!, runDir });
  for (const s of signals) {
    child.kill(s);
    await sleep(50);
  }
  const [code, signal] = await exited;
  await sleep(100);
  return { dir, plan, runDir, code, signal, stdout, stderr, pids, running, reaper };
}
