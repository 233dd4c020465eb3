/**
 * `npm run build:standalone`: faultline as one executable file (build/standalone/faultline) that
 * needs no Node on the machine it runs on — Node's single-executable applications:
 *
 *   1. esbuild bundles the CLI and the engine's worker (bundle.ts);
 *   2. the data files it reads by path become SEA assets, with a manifest (assets.ts);
 *   3. `node --experimental-sea-config` writes the preparation blob;
 *   4. postject injects the blob into a copy of the node binary running this script.
 *
 * Linux x86-64 only: the embedded resvg addon is the linux-x64-gnu build. The executable needs
 * glibc and libstdc++ like that node binary does (`ldd build/standalone/faultline`).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { inject } from './postject.js';
import { collectAssets } from './assets.js';
import { bundleStandalone } from './bundle.js';
import { MANIFEST_KEY } from './extract-assets.js';

/** Where `npm run build:standalone` writes the executable, relative to the repository root. */
export const STANDALONE_EXECUTABLE = 'build/standalone/faultline';

/** The marker postject flips in the node binary so it runs the injected blob (Node's SEA docs). */
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

export interface StandaloneBuild {
  executable: string;
  bytes: number;
  assets: number;
  seconds: number;
}

export function standaloneSupported(): { ok: boolean; why?: string } {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    return { ok: false, why: `the standalone build targets Linux x86-64 (this is ${process.platform}-${process.arch})` };
  return { ok: true };
}

function run(file: string, args: string[], cwd: string): void {
  const r = spawnSync(file, args, { cwd, encoding: 'utf8' });
  if (r.status !== 0)
    throw new Error(`${[file, ...args].join(' ')} failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stderr}${r.stdout}`);
}

export async function buildStandalone(o: { repoRoot: string; outDir: string; node?: string }): Promise<StandaloneBuild> {
  const started = Date.now();
  const supported = standaloneSupported();
  if (!supported.ok) throw new Error(supported.why);
  const node = o.node ?? process.execPath;
  if (!readFileSync(node).includes(SEA_FUSE))
    throw new Error(`${node} was built without single-executable-application support (no ${SEA_FUSE} in it)`);

  const work = join(o.outDir, 'work');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const { main, worker } = await bundleStandalone(o.repoRoot, work);
  // the unpacked tree's own package.json: the worker bundle (a .js file) is CommonJS
  const packageJson = join(work, 'package.json');
  writeFileSync(packageJson, JSON.stringify({ name: 'faultline-standalone-files', private: true, type: 'commonjs' }) + '\n');
  const { assets, manifest } = collectAssets(o.repoRoot, [
    { key: 'dist/engine/shard-worker.js', path: worker, executable: false },
    { key: 'package.json', path: packageJson, executable: false },
  ]);
  const manifestPath = join(work, 'manifest.json');
  writeFileSync(manifestPath, JSON.stringify(manifest) + '\n');
  const blob = join(work, 'sea-prep.blob');
  const config = {
    main,
    output: blob,
    disableExperimentalSEAWarning: true,
    useCodeCache: true,
    assets: { [MANIFEST_KEY]: manifestPath, ...Object.fromEntries(assets.map((a) => [a.key, a.path])) },
  };
  const configPath = join(work, 'sea-config.json');
  writeFileSync(configPath, JSON.stringify(config, null, 2) + '\n');
  run(node, ['--experimental-sea-config', configPath], work);

  const executable = join(o.outDir, basename(STANDALONE_EXECUTABLE));
  rmSync(executable, { force: true });
  copyFileSync(node, executable);
  chmodSync(executable, 0o755);
  await inject(executable, 'NODE_SEA_BLOB', readFileSync(blob), { sentinelFuse: SEA_FUSE });
  return { executable, bytes: statSync(executable).size, assets: assets.length, seconds: (Date.now() - started) / 1000 };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const repoRoot = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
  buildStandalone({ repoRoot, outDir: dirname(join(repoRoot, STANDALONE_EXECUTABLE)) }).then(
    (b) =>
      console.log(
        `built ${b.executable}: ${(b.bytes / 2 ** 20).toFixed(1)} MiB, ${b.assets} embedded files, in ${b.seconds.toFixed(1)} s`,
      ),
    (e: Error) => {
      console.error(`build:standalone: ${e.message}`);
      process.exitCode = 1;
    },
  );
}
