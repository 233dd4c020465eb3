/** What a command may touch of the outside world; tests pass their own to capture output. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** True when stderr is an interactive terminal (live progress allowed). */
  isTTY: boolean;
}

let pipeGuardInstalled = false;

/**
 * `faultline lint … | head` closes stdout early; writing on must end quietly (as other Unix tools do),
 * not with an EPIPE stack trace. A closed terminal (SIGHUP) makes writes fail with EIO: the output
 * is dropped so that the signal's orderly stop (servers stopped, journal kept) can finish.
 */
function exitQuietlyOnClosedPipe(): void {
  if (pipeGuardInstalled) return;
  pipeGuardInstalled = true;
  for (const stream of [process.stdout, process.stderr])
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      if (e.code === 'EIO') return;
      throw e;
    });
}

export function processIO(): CliIO {
  exitQuietlyOnClosedPipe();
  return {
    out: (t) => void process.stdout.write(t),
    err: (t) => void process.stderr.write(t),
    env: process.env,
    cwd: process.cwd(),
    isTTY: Boolean(process.stderr.isTTY),
  };
}

/** Collects output in memory; for in-process CLI tests. */
export function memoryIO(overrides: Partial<CliIO> = {}): CliIO & { stdout: () => string; stderr: () => string } {
  let out = '';
  let err = '';
  return {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    env: {},
    cwd: process.cwd(),
    isTTY: false,
    ...overrides,
    stdout: () => out,
    stderr: () => err,
  };
}
