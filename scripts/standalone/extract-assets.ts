/**
 * The standalone executable carries faultline's data files (prompt text, hazard pages, the test
 * models, resvg's native addon) as single-executable-application assets. Code that reads them by
 * path — most of faultline — needs them on disk, so on first use they are unpacked once into a
 * cache directory named by the content hash of the whole set:
 *
 *   $FAULTLINE_CACHE_DIR, else $XDG_CACHE_HOME/faultline, else ~/.cache/faultline, else
 *   $TMPDIR/faultline-UID  (the first one that can be written: a container's HOME may be read-only)
 *
 * Unpacking goes into a private temporary directory that is renamed into place, so two processes
 * starting at once never see a half-written tree. A directory is reused only when it is complete
 * (its stamp names the same hash) and it and its parent are owned by this user or root and writable
 * by no one else. A tree unpacked by root at image build time is therefore used by any user.
 */
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const MANIFEST_KEY = 'faultline/manifest.json';
const STAMP = '.faultline-complete';

export interface AssetManifest {
  /** Content hash of every file (key and bytes). */
  id: string;
  files: { key: string; executable?: boolean }[];
}

export type ReadAsset = (key: string) => ArrayBuffer;

export function cacheCandidates(env: NodeJS.ProcessEnv): string[] {
  const uid = process.getuid?.() ?? 'user';
  const home = env.HOME || homedir();
  return [
    env.FAULTLINE_CACHE_DIR,
    env.XDG_CACHE_HOME && join(env.XDG_CACHE_HOME, 'faultline'),
    home && join(home, '.cache', 'faultline'),
    join(tmpdir(), `faultline-${uid}`),
  ].filter((d): d is string => Boolean(d));
}

/**
 * A real directory (no symlink) owned by this user or by root and writable by no one else: nobody
 * but its owner can swap what is in it. The files are public data, so readable by all.
 */
function ownedSafely(dir: string): boolean {
  try {
    const st = lstatSync(dir);
    const uid = process.getuid?.();
    const owner = uid === undefined || st.uid === uid || st.uid === 0;
    return st.isDirectory() && owner && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

function complete(dir: string, id: string): boolean {
  try {
    return readFileSync(join(dir, STAMP), 'utf8') === id;
  } catch {
    return false;
  }
}

const usable = (base: string, target: string, id: string) => ownedSafely(base) && ownedSafely(target) && complete(target, id);

function unpack(manifest: AssetManifest, read: ReadAsset, into: string): void {
  for (const f of manifest.files) {
    const path = join(into, ...f.key.split('/'));
    mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
    writeFileSync(path, new Uint8Array(read(f.key)), { mode: f.executable ? 0o755 : 0o644 });
  }
  writeFileSync(join(into, STAMP), manifest.id);
}

/** Returns the directory that holds every asset at its key's path; unpacks them there if needed. */
export function materializeAssets(manifest: AssetManifest, read: ReadAsset, bases: string[]): string {
  const tried: string[] = [];
  for (const base of bases) {
    const target = join(base, `standalone-${manifest.id}`);
    if (usable(base, target, manifest.id)) return target;
    let temporary: string | undefined;
    try {
      mkdirSync(base, { recursive: true, mode: 0o755 });
      if (!ownedSafely(base)) throw new Error('owned by another user or writable by others');
      temporary = mkdtempSync(join(base, '.unpacking-'));
      unpack(manifest, read, temporary);
      chmodSync(temporary, 0o755);
      try {
        renameSync(temporary, target);
      } catch (e) {
        // another process may have won the race; anything else in the way is not ours to reuse
        if (!usable(base, target, manifest.id)) throw e;
        rmSync(temporary, { recursive: true, force: true });
      }
      return target;
    } catch (e) {
      if (temporary) rmSync(temporary, { recursive: true, force: true });
      tried.push(`${base} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
  }
  throw new Error(
    `faultline: cannot unpack its data files: tried ${tried.join(', ')}; set FAULTLINE_CACHE_DIR to a writable directory`,
  );
}
