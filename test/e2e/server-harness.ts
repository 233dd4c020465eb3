/**
 * Starts `faultline engine serve … --port 0` (built, else from source) as a child process (argv array, no shell)
 * and reads the bound URL from its "listening on http://…" line. For the server e2e tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cliCommand, repoRoot } from '../helpers/cli.js';

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  /** Resolves with the exit code (null if killed by a signal) and signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

export function startServer(flags: string[], timeoutMs = 30_000): Promise<ServerProcess> {
  const [program, ...pre] = cliCommand();
  const child = spawn(program, [...pre, 'engine', 'serve', '--port', '0', ...flags], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start in ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    child.stderr!.on('data', (d) => (stderr += d));
    child.stdout!.on('data', (d) => {
      stdout += d;
      const m = /listening on (http:\/\/\S+)/.exec(stdout);
      if (!m) return;
      clearTimeout(timer);
      resolve({
        url: m[1],
        child,
        stderr: () => stderr,
        exited,
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          await exited;
        },
      });
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening: ${stderr}`));
    });
  });
}
