/**
 * `faultline engine serve` from a source tree — this checkout or any commit of its history — as a
 * child process on 127.0.0.1, for benches that compare two versions in one run. A commit is
 * unpacked with `git archive` into a temporary directory that borrows this checkout's node_modules
 * (a commit whose dependencies are a subset of today's runs unchanged); its CLI runs from source
 * through tsx, as this checkout's does, so both pay the same start-up and neither needs a build.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('..', import.meta.url));

export interface TreeServer {
  /** What the tree is: 'this checkout' or the commit's short hash and subject. */
  label: string;
  url: string;
  close(): Promise<void>;
}

/** The directory holding `ref`'s tree (unpacked into a temporary directory), or this checkout for null. */
function treeOf(ref: string | null): { root: string; label: string; cleanup: () => void } {
  if (ref === null) return { root: repoRoot, label: 'this checkout', cleanup: () => {} };
  const git = (args: string[]) => spawnSync('git', args, { cwd: repoRoot, encoding: 'utf8', maxBuffer: 1 << 30 });
  const described = git(['log', '-1', '--format=%h %s', ref]);
  if (described.status !== 0) throw new Error(`bench: no commit ${ref} in ${repoRoot}: ${described.stderr.trim()}`);
  const root = mkdtempSync(join(tmpdir(), 'faultline-tree-'));
  const archive = spawnSync('git', ['archive', '--format=tar', ref], { cwd: repoRoot, maxBuffer: 1 << 30 });
  const untar = archive.status === 0 ? spawnSync('tar', ['-x', '-C', root], { input: archive.stdout }) : archive;
  if (untar.status !== 0) {
    rmSync(root, { recursive: true, force: true });
    throw new Error(`bench: could not unpack ${ref}: ${String(untar.stderr).trim()}`);
  }
  symlinkSync(join(repoRoot, 'node_modules'), join(root, 'node_modules'));
  return { root, label: described.stdout.trim().slice(0, 72), cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** Starts `engine serve` of `ref` (null: this checkout) with `flags`; resolves once it prints where it listens. */
export async function startTreeServer(ref: string | null, flags: string[]): Promise<TreeServer> {
  const tree = treeOf(ref);
  const runner = `const { main } = await import(${JSON.stringify(join(tree.root, 'src/cli/main.ts'))}); process.exitCode = await main(process.argv.slice(1));`;
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', runner, 'engine', 'serve', '--host', '127.0.0.1', '--port', '0', '--shutdown-timeout', '1', ...flags], {
    cwd: tree.root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const orphanGuard = () => child.kill('SIGTERM'); // the bench ending any way takes its servers with it
  process.once('exit', orphanGuard);
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const m = /^listening on (http:\/\/\S+)/.exec(line);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`bench: engine serve of ${tree.label} exited ${code} before listening:\n${stderr}`)));
  }).catch((e: unknown) => {
    tree.cleanup();
    throw e;
  });
  return {
    label: tree.label,
    url,
    async close() {
      process.off('exit', orphanGuard);
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      tree.cleanup();
    },
  };
}
