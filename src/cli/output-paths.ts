/**
 * Output paths are checked before a command does any work: a probe that runs for minutes, then
 * finds that `--out` points into a missing directory, has lost its verdict. Each check makes the
 * missing parent directories (as `--html` always did), refuses a file path that is a directory (or
 * a directory path that is a file) and one that cannot be written, as a UserError naming the flag.
 *
 * A write can still fail after the work (a full disk, a directory removed meanwhile): `LateWrites`
 * runs the writes after the verdict is printed, reports each failure in one line on stderr, and
 * leaves the exit status the verdict's, so the answer a CI job waits for is never dropped.
 */
import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UserError } from '../core/errors.js';
import type { CliIO } from './io.js';

function errnoOf(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? (e as Error).message;
}

function statOrUndefined(path: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw e;
  }
}

function makeDirectory(flag: string, dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw new UserError(`${flag}: cannot create the directory ${dir} (${errnoOf(e)})`, {
      code: 'E_OUTPUT_PATH',
      hint: `pass ${flag} a path under a directory you can write`,
    });
  }
}

function checkWritable(flag: string, path: string, what: string): void {
  try {
    accessSync(path, constants.W_OK);
  } catch (e) {
    throw new UserError(`${flag}: ${what} ${path} is not writable (${errnoOf(e)})`, {
      code: 'E_OUTPUT_PATH',
      hint: `pass ${flag} a path you can write`,
    });
  }
}

/** A file the command will write at the end: resolved against cwd, its directory made, checked. */
export function prepareOutputFile(flag: string, cwd: string, path: string): string {
  const file = resolve(cwd, path);
  let existing: ReturnType<typeof statSync> | undefined;
  try {
    existing = statOrUndefined(file);
  } catch (e) {
    throw new UserError(`${flag}: cannot use ${file} (${errnoOf(e)})`, { code: 'E_OUTPUT_PATH', hint: `pass ${flag} a file path you can write` });
  }
  if (existing?.isDirectory())
    throw new UserError(`${flag}: ${file} is a directory, not a file`, {
      code: 'E_OUTPUT_PATH',
      hint: `name the file to write, e.g. ${flag} ${path.replace(/\/+$/, '')}/out.${flag === '--html' ? 'html' : 'json'}`,
    });
  if (existing) checkWritable(flag, file, 'the file');
  else {
    const dir = dirname(file);
    const parent = statOrUndefined(dir);
    if (parent && !parent.isDirectory())
      throw new UserError(`${flag}: ${dir} is a file, so ${file} cannot be created`, { code: 'E_OUTPUT_PATH', hint: `pass ${flag} a path under a directory` });
    makeDirectory(flag, dir);
    checkWritable(flag, dir, 'the directory');
  }
  return file;
}

/** A directory the command will fill: resolved against cwd, made if missing, refused if it is a file. */
export function prepareOutputDir(flag: string, cwd: string, path: string): string {
  const dir = resolve(cwd, path);
  const existing = statOrUndefined(dir);
  if (existing && !existing.isDirectory())
    throw new UserError(`${flag}: ${dir} is a file, not a directory`, {
      code: 'E_OUTPUT_PATH',
      hint: `${flag} takes a directory (it is created if missing); choose another path`,
    });
  makeDirectory(flag, dir);
  checkWritable(flag, dir, 'the directory');
  return dir;
}

/** Writes that run after the verdict is out; a failure is reported, never thrown past the verdict. */
export class LateWrites {
  private readonly failures: string[] = [];

  constructor(private readonly io: CliIO) {}

  async attempt(flag: string, path: string, write: () => void | Promise<unknown>): Promise<boolean> {
    try {
      await write();
      return true;
    } catch (e) {
      const why = e instanceof UserError ? e.message : errnoOf(e);
      this.failures.push(`${flag} ${path}: ${why}`);
      return false;
    }
  }

  /** Prints every failure (after the verdict) and says that the exit status is still the verdict's. */
  report(exitCode: number): void {
    for (const f of this.failures) this.io.err(`error: could not write ${f}\n`);
    if (this.failures.length)
      this.io.err(`hint: the verdict above stands (exit ${exitCode}); rerun with a writable path to get the file${this.failures.length > 1 ? 's' : ''}\n`);
  }

  get failed(): number {
    return this.failures.length;
  }
}
