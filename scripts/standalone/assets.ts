/**
 * What the standalone executable carries besides its code, each file under the path it has in an
 * installed package: the files faultline reads by path at run time. Symlinks are followed (the
 * qscale model shares its weights shard with tiny-swa through one), so each asset is a plain file.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { AssetManifest } from './extract-assets.js';

/** Directories and files, relative to the repository root. */
export const ASSET_ROOTS = [
  'data', // the probe's held-out prompt text
  'docs/hazards', // lint --explain pages, SARIF help links
  'models/tiny-swa', // the engine's default model
  'node_modules/@resvg/resvg-js', // report --png: the JS part …
  'node_modules/@resvg/resvg-js-linux-x64-gnu', // … and its native addon for this platform
];

export interface Asset {
  key: string;
  path: string;
  executable: boolean;
}

function walk(root: string, rel: string, out: Asset[]): void {
  const path = join(root, rel);
  const st = statSync(path);
  if (st.isDirectory()) {
    for (const name of readdirSync(path).sort()) walk(root, join(rel, name), out);
    return;
  }
  out.push({ key: rel.split(sep).join('/'), path, executable: (st.mode & 0o111) !== 0 });
}

export function collectAssets(repoRoot: string, extra: Asset[] = []): { assets: Asset[]; manifest: AssetManifest } {
  const assets: Asset[] = [];
  for (const r of ASSET_ROOTS) walk(repoRoot, r, assets);
  assets.push(...extra);
  const hash = createHash('sha256');
  for (const a of assets) hash.update(a.key).update('\0').update(readFileSync(a.path)).update('\0');
  const manifest: AssetManifest = {
    id: hash.digest('hex').slice(0, 16),
    files: assets.map((a) => ({ key: a.key, ...(a.executable ? { executable: true } : {}) })),
  };
  return { assets, manifest };
}
