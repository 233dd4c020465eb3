/**
 * Signals at random points of real matrix runs: `faultline matrix` (built, dist/) launching real
 * engine servers, interrupted by SIGINT, SIGTERM, SIGHUP or SIGKILL (half of the SIGKILLs also
 * kill the reaper, the harshest case), then resumed to the end. The anchor is the same plan run
 * once without interruption in the same bench run: its configurations are what a resumed run
 * must end with. A run killed before it wrote its journal (faultline still loading, before any
 * server) has nothing to resume and is started again, as a user would.
 *
 *   orphans         processes of the run still running once faultline (and, after SIGKILL, the
 *                   reaper's grace period) is done: members of every process group the journal
 *                   recorded, and any process carrying the run's id in its environment (a /proc scan)
 *   lost cells      configurations the uninterrupted run journaled that the resumed run did not
 *   cells run twice configurations journaled more than once (a recheck is a separate key)
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Rng } from '../../src/core/rng.js';
import { parseJournal, type JournalRecord } from '../../src/matrix/journal.js';
import { environHas, groupMembers, listProcesses } from '../../src/matrix/proc-scan.js';
import { RUN_ID_ENV } from '../../src/matrix/survivors.js';
import { scaleDefectPlan } from '../../test/helpers/scale-defect-plan.js';

const root = new URL('../../', import.meta.url).pathname;

/**
 * The build the runs use, copied once: a rebuild of dist/ while the bench runs (tsc rewriting a
 * file a starting server is loading) must not count as a fault of the run.
 */
function frozenBuild(): string {
  const copy = mkdtempSync(join(tmpdir(), 'faultline-faults-build-'));
  cpSync(join(root, 'dist'), join(copy, 'dist'), { recursive: true });
  for (const shared of ['models', 'data', 'node_modules', 'package.json']) symlinkSync(join(root, shared), join(copy, shared));
  return copy;
}
let build: string | undefined;
const cli = () => join((build ??= frozenBuild()), 'dist/cli/main.js');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export type Interrupt = 'SIGINT' | 'SIGTERM' | 'SIGHUP' | 'SIGKILL' | 'SIGKILL+reaper';
export const INTERRUPTS: Interrupt[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGKILL', 'SIGINT', 'SIGTERM', 'SIGHUP', 'SIGKILL+reaper'];

/** A small plan over the scale-defect model: three factors, strength 2, one interaction to find. */
export function writePlan(dir: string, marker: string): string {
  const plan = join(dir, 'plan.yaml');
  const launch = `  argv: [${JSON.stringify(process.execPath)}, "{faultline_root}/dist/cli/main.js", engine, serve, --model, "{faultline_root}/models/tiny-swa-qscale",
         --emulate, sm100-affected, --served-model-name, {marker}, --max-model-len, "320", --port, "{port}"]`;
  writeFileSync(plan, scaleDefectPlan(launch, marker, 'executor: { parallel: 2 }\n'));
  return plan;
}

interface Exited {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  ms: number;
}

function startMatrix(args: string[]): { pid: number; done: Promise<Exited> } {
  const started = Date.now();
  const child = spawn(process.execPath, [cli(), 'matrix', ...args, '--quiet', '--format', 'json'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const done = new Promise<Exited>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr, ms: Date.now() - started })));
  return { pid: child.pid!, done };
}

function journal(runDir: string): JournalRecord[] {
  const path = join(runDir, 'journal.jsonl');
  if (!existsSync(path)) return [];
  return parseJournal(path, readFileSync(path, 'utf8')).records;
}

/** Configuration keys of the journaled cells ("#recheck" marks a deliberate second launch). */
function cellKeys(records: JournalRecord[]): string[] {
  return records.flatMap((r) => (r.type === 'cell' ? [`${JSON.stringify(r.cell.levels)}${r.cell.recheckOf ? '#recheck' : ''}`] : []));
}

/** Running processes of the run: recorded groups' members and carriers of the run id. */
export function runProcesses(records: JournalRecord[]): number[] {
  const head = records[0];
  const runId = head?.type === 'run' ? head.runId : undefined;
  const pids = new Set<number>();
  for (const r of records) if (r.type === 'server') for (const p of groupMembers(r.pgid)) pids.add(p.pid);
  if (runId) for (const p of listProcesses()) if (p.state !== 'Z' && environHas(p.pid, `${RUN_ID_ENV}=${runId}`)) pids.add(p.pid);
  return [...pids];
}

async function settle(records: () => JournalRecord[], ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  let left = runProcesses(records());
  while (left.length && Date.now() < deadline) {
    await sleep(200);
    left = runProcesses(records());
  }
  return left;
}

async function lingers(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const stat = listProcesses().find((p) => p.pid === pid);
    if (!stat || stat.state === 'Z') return false;
    await sleep(100);
  }
  return true;
}

/** The reaper: faultline's child running reaper.js. */
function reaperOf(pid: number): number | undefined {
  for (const p of listProcesses()) {
    if (p.ppid !== pid) continue;
    try {
      if (readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').includes('reaper.js')) return p.pid;
    } catch {
      // gone
    }
  }
  return undefined;
}

export interface Anchor {
  keys: string[];
  verdictCode: number | null;
  ms: number;
}

export async function anchorRun(dir: string): Promise<Anchor> {
  mkdirSync(dir, { recursive: true });
  const plan = writePlan(dir, `fl-faults-anchor-${process.pid}`);
  const runDir = join(dir, 'run');
  const r = await startMatrix([plan, '--out', runDir]).done;
  if (r.code !== 1) throw new Error(`the uninterrupted run should find the interaction (exit 1), got ${r.code}:\n${r.stderr}`);
  return { keys: cellKeys(journal(runDir)), verdictCode: r.code, ms: r.ms };
}

export interface FaultRun {
  interrupt: Interrupt;
  atMs: number;
  exit: string;
  /** Left running once the interrupted faultline (and its reaper) were done; expected only when the reaper was killed too. */
  orphansAfterInterrupt: number;
  orphans: number;
  lost: number;
  twice: number;
  resumeCode: number | null;
  /** No journal existed yet, so the run was started again instead of resumed. */
  restarted: boolean;
  survivorsStoppedByResume: number;
}

export async function faultRun(dir: string, interrupt: Interrupt, rng: Rng, anchor: Anchor): Promise<FaultRun> {
  mkdirSync(dir, { recursive: true });
  const plan = writePlan(dir, `fl-faults-${process.pid}-${Date.now()}`);
  const runDir = join(dir, 'run');
  const atMs = Math.round((0.05 + 0.75 * rng.next()) * anchor.ms);
  const run = startMatrix([plan, '--out', runDir]);
  let exited: Exited | undefined;
  void run.done.then((e) => (exited = e));
  const deadline = Date.now() + atMs;
  while (!exited && Date.now() < deadline) await sleep(50);
  const reaper = exited ? undefined : reaperOf(run.pid);
  if (!exited) {
    if (interrupt === 'SIGKILL+reaper') {
      process.kill(run.pid, 'SIGKILL');
      if (reaper) process.kill(reaper, 'SIGKILL');
    } else process.kill(run.pid, interrupt === 'SIGKILL' ? 'SIGKILL' : interrupt);
  }
  const first = await run.done;
  // after SIGKILL the reaper needs up to stop_timeout_s (5 s) + its SIGKILL wait
  const left = await settle(() => journal(runDir), interrupt === 'SIGKILL' ? 15_000 : 2_000);
  // a reaper that outlives its work is an orphan too
  const reaperLeft = reaper !== undefined && interrupt !== 'SIGKILL+reaper' && (await lingers(reaper, 3_000)) ? 1 : 0;
  // killed before it wrote its journal (still loading; no server started yet): the user starts it again
  const restarted = !existsSync(join(runDir, 'journal.jsonl'));
  const resumed = await startMatrix(restarted ? [plan, '--out', runDir] : [plan, '--resume', runDir]).done;
  const records = journal(runDir);
  const orphans = await settle(() => records, 2_000);
  const keys = cellKeys(records);
  const final = new Set(keys);
  // a crash exits 1 too: a verdict is known by its closing progress line
  if (!/(corruption-found|clean|inconclusive) in \d+ s/.test(resumed.stderr))
    console.log(`  the ${restarted ? 'restarted' : 'resumed'} run ended with ${resumed.signal ?? resumed.code}; its stderr ends:\n${resumed.stderr.trimEnd().split('\n').slice(-6).join('\n')}`);
  const stopped = /stopped (\d+) server\(s\) the interrupted run left running/.exec(resumed.stderr);
  return {
    interrupt,
    atMs,
    exit: first.signal ?? String(first.code),
    orphansAfterInterrupt: left.length,
    orphans: orphans.length + reaperLeft + (interrupt === 'SIGKILL+reaper' ? 0 : left.length),
    lost: anchor.keys.filter((k) => !final.has(k)).length,
    twice: keys.length - final.size,
    resumeCode: resumed.code,
    restarted,
    survivorsStoppedByResume: stopped ? Number(stopped[1]) : 0,
  };
}
