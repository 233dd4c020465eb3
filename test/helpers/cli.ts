/**
 * Spawns the real CLI the way a user runs it, for end-to-end tests: the built dist/ when it is
 * at least as new as every file under src/ (`npm test` builds first, and a built CLI starts in a
 * third of the time), else the source through tsx, so a test run right after an edit still tests
 * the edit. argv is an array: nothing passes through a shell.
 */
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const mainTs = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const mainJs = join(repoRoot, 'dist', 'cli', 'main.js');
// resolved here, not from the child's cwd, so tests may run the CLI in a temporary directory
const tsxLoader = import.meta.resolve('tsx');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

let command: string[] | undefined;

/** The words that start the CLI (node and its script, with the tsx loader when it runs from source). */
export function cliCommand(): string[] {
  if (command) return command;
  let built = 0;
  try {
    built = statSync(mainJs).mtimeMs;
  } catch {
    // not built: run from source
  }
  command = built >= newestMtime(join(repoRoot, 'src')) ? [process.execPath, mainJs] : [process.execPath, '--import', tsxLoader, mainTs];
  return command;
}

/** cliCommand() as a YAML flow sequence's items, for matrix plans whose launch is the engine. */
export function cliCommandYaml(): string {
  return cliCommand().map((w) => JSON.stringify(w)).join(', ');
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function runCli(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const [program, ...pre] = cliCommand();
    const child = spawn(program, [...pre, ...args], {
      cwd: options.cwd ?? repoRoot,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}
