/**
 * Runs the guarded command unchanged, as a container entrypoint wrapper must: argv as given (no
 * shell), stdin/stdout/stderr inherited, SIGTERM / SIGINT / SIGHUP forwarded to the child, and the
 * child's exit status returned — its exit code, or 128 + the signal number when a signal ended it
 * (what a shell reports, since an in-process caller cannot die by the child's signal itself).
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';

const FORWARDED: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];

export interface ChildExit {
  code: number;
  signal?: NodeJS.Signals;
  /** Set when the command could not be started at all. */
  startError?: string;
}

export function execChild(argv: string[], opts: { env: NodeJS.ProcessEnv; cwd: string }): Promise<ChildExit> {
  return new Promise((resolvePromise) => {
    const child = spawn(argv[0], argv.slice(1), { stdio: 'inherit', env: opts.env, cwd: opts.cwd });
    const forward = (sig: NodeJS.Signals) => () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(sig);
    };
    const handlers = FORWARDED.map((sig) => [sig, forward(sig)] as const);
    for (const [sig, h] of handlers) process.on(sig, h);
    let settled = false;
    const done = (r: ChildExit) => {
      if (settled) return;
      settled = true;
      for (const [sig, h] of handlers) process.off(sig, h);
      resolvePromise(r);
    };
    child.on('error', (e: NodeJS.ErrnoException) =>
      done({
        code: e.code === 'ENOENT' ? 127 : 126,
        startError: `cannot start ${argv[0]}: ${e.code === 'ENOENT' ? 'not found on PATH' : e.message}`,
      }),
    );
    child.on('exit', (code, signal) => {
      if (signal) done({ code: 128 + (constants.signals[signal] ?? 0), signal });
      else done({ code: code ?? 1 });
    });
  });
}
