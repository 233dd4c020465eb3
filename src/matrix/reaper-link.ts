/**
 * faultline's end of the reaper (reaper.ts): started on the first server group, told of every
 * group started and stopped, and never waited for. Its pipe closes when faultline's process
 * ends, which is the reaper's cue. Where it cannot start, the journal's record of each group
 * is what `--resume` and `--cleanup` fall back on, and the failure is said once on stderr.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

let reaper: ChildProcess | undefined;
let failed = false;

/** node + the reaper's entry: the compiled .js beside this file, or under tsx (a source checkout) the .ts with tsx's loader. */
function reaperArgv(): string[] {
  const source = import.meta.url.endsWith('.ts');
  const entry = fileURLToPath(new URL(source ? './reaper.ts' : './reaper.js', import.meta.url));
  return source ? ['--import', import.meta.resolve('tsx'), entry] : [entry];
}

function start(): ChildProcess | undefined {
  if (failed || process.platform === 'win32') return undefined;
  if (reaper) return reaper;
  try {
    const child = spawn(process.execPath, reaperArgv(), { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
    child.on('error', (e) => {
      failed = true;
      process.stderr.write(`faultline: could not start the reaper that stops servers if faultline is killed (${e.message}); --resume and --cleanup still stop them\n`);
    });
    child.stdin?.on('error', () => {
      // the reaper is gone (EPIPE): nothing to tell it any more
    });
    child.unref();
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    reaper = child;
    return child;
  } catch {
    failed = true;
    return undefined;
  }
}

function tell(line: string): void {
  const child = start();
  if (child?.stdin?.writable) child.stdin.write(`${line}\n`);
}

export function reaperWatch(pgid: number, graceMs: number): void {
  tell(`+${pgid} ${Math.max(0, Math.round(graceMs))}`);
}

export function reaperForget(pgid: number): void {
  if (reaper) tell(`-${pgid}`);
}

/** The reaper's pid, for tests. */
export function reaperPid(): number | undefined {
  return reaper?.pid;
}
