/**
 * Injected into the standalone bundle (esbuild `inject`): where faultline's own files are at run
 * time. The bundler rewrites each source file's `import.meta.url` into
 * `__faultlineModuleUrl("dist/…/file.js")`, the URL that file has in an installed package, so every
 * `new URL('../../data/…', import.meta.url)` resolves inside the package root as it does from dist/.
 *
 * The root is the unpacked asset directory in the executable itself, and the directory three levels
 * above a bundle that lives on disk at dist/engine/… (the engine's worker thread, unpacked with the rest).
 */
import { getAsset, isSea } from 'node:sea';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cacheCandidates, materializeAssets, MANIFEST_KEY, type AssetManifest } from './extract-assets.js';

declare const FAULTLINE_ROOT_FROM: 'executable' | 'bundle-file';

let root: string | undefined;

function packageRoot(): string {
  if (root !== undefined) return root;
  if (FAULTLINE_ROOT_FROM === 'bundle-file') return (root = resolve(__dirname, '..', '..'));
  if (!isSea()) {
    // the bundle run by plain node while debugging the build
    if (!process.env.FAULTLINE_STANDALONE_ROOT) throw new Error('faultline standalone bundle: not inside the executable and FAULTLINE_STANDALONE_ROOT is unset');
    return (root = process.env.FAULTLINE_STANDALONE_ROOT);
  }
  const manifest = JSON.parse(getAsset(MANIFEST_KEY, 'utf8')) as AssetManifest;
  return (root = materializeAssets(manifest, (key) => getAsset(key), cacheCandidates(process.env)));
}

export function __faultlineModuleUrl(virtualPath: string): string {
  return pathToFileURL(join(packageRoot(), virtualPath)).href;
}

/** `import.meta.resolve` only serves running from source (the tsx loader); the bundle never does. */
export function __faultlineNoResolve(specifier: string): string {
  throw new Error(`faultline standalone: cannot resolve ${specifier} at run time`);
}
