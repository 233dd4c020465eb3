/** Where a report came from: faultline's version and, when it runs from a git checkout, its revision. */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageRoot = fileURLToPath(new URL('../../', import.meta.url));

/** faultline's own commit, or undefined outside a checkout (an installed package) or without git. */
export function gitRevision(root: string = packageRoot): string | undefined {
  if (!existsSync(join(root, '.git'))) return undefined;
  try {
    const out = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8', timeout: 2000, stdio: ['ignore', 'pipe', 'ignore'] });
    return /^[0-9a-f]{40}$/.test(out.trim()) ? out.trim() : undefined;
  } catch {
    return undefined;
  }
}

/** argv shown for reading; arguments with spaces or quotes are quoted so the line is unambiguous. */
export function commandLine(argv: readonly string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}
