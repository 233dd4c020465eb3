/** What a command may touch of the outside world; tests pass their own to capture output. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** True when stderr is an interactive terminal (live progress allowed). */
  isTTY: boolean;
}

export function processIO(): CliIO {
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
