/**
 * dist/cli-bundle/: the CLI's own modules of dist/ bundled into a few ES module files, which
 * bin/faultline.js runs. Node loads each ES module file on its own (resolve, read, compile, link),
 * and `faultline lint` touches about 270 of them: the bundle spares most of that start-up (measured
 * by bench/lint.ts). Dependencies stay in node_modules, each command stays a chunk of its own
 * (the CLI imports only the command it runs), and every module keeps the import.meta.url of its
 * file in dist/ (module-urls.ts), which dist/ still holds. Any esbuild warning fails the build.
 */
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { moduleUrls } from './module-urls.js';

export const CLI_BUNDLE_DIR = 'dist/cli-bundle';

export async function bundleCli(repoRoot: string): Promise<void> {
  const outdir = join(repoRoot, CLI_BUNDLE_DIR);
  rmSync(outdir, { recursive: true, force: true }); // chunk names change with their contents
  const result = await build({
    entryPoints: [join(repoRoot, 'dist/cli/main.js')],
    outdir,
    // every chunk beside the entry, so one relative path per module serves them all
    chunkNames: '[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    keepNames: false,
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'silent',
    plugins: [
      moduleUrls({
        repoRoot,
        urlOf: (installed) =>
          `new URL(${JSON.stringify(relative(outdir, join(repoRoot, installed)))}, import.meta.url).href`,
      }),
    ],
  });
  if (result.warnings.length)
    throw new Error(
      `esbuild warnings:\n${result.warnings.map((w) => `${w.location?.file ?? ''}:${w.location?.line ?? ''} ${w.text}`).join('\n')}`,
    );
}
