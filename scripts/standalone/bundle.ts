/**
 * esbuild turns the CLI into one CommonJS file (Node 20's single-executable applications run a
 * CommonJS main script) and the engine's worker thread into a second one, unpacked beside the
 * data. Two rewrites make ESM source work there:
 *   - `import.meta.url` in our sources becomes the URL the file has in an installed package
 *     (package-root.ts says where that package is at run time);
 *   - `@resvg/resvg-js` (a native addon) is loaded from the unpacked files with a real `require`,
 *     since the executable's own `require` only knows Node's built-in modules;
 *   - `vega-canvas` is its browser build: the Node build awaits `import('canvas')` at top level (no
 *     CommonJS equivalent), and without the optional canvas package both builds return no canvas.
 * Any esbuild warning fails the build: each one is a place where the bundle would behave
 * differently from dist/.
 */
import { build, type BuildOptions, type Plugin } from 'esbuild';
import { join } from 'node:path';
import { moduleUrls } from '../bundle/module-urls.js';

const NATIVE = '@resvg/resvg-js';

/** The standalone's own rewrites: the browser build of vega-canvas, the native addon from the unpacked files. */
function standaloneModules(repoRoot: string): Plugin {
  return {
    name: 'faultline-standalone-modules',
    setup(b) {
      b.onResolve({ filter: /^vega-canvas$/ }, () => ({
        path: join(repoRoot, 'node_modules/vega-canvas/build/vega-canvas.browser.js'),
      }));
      b.onResolve({ filter: new RegExp(`^${NATIVE.replace('/', '\\/')}$`) }, () => ({ path: NATIVE, namespace: 'faultline-unpacked' }));
      b.onLoad({ filter: /.*/, namespace: 'faultline-unpacked' }, () => ({
        contents: `module.exports = require('node:module').createRequire(__faultlineModuleUrl('package.json'))(${JSON.stringify(NATIVE)});`,
        loader: 'js',
        resolveDir: repoRoot,
      }));
    },
  };
}

async function bundleOne(repoRoot: string, options: BuildOptions): Promise<void> {
  const result = await build({
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    minify: false,
    sourcemap: false,
    legalComments: 'eof',
    logLevel: 'silent',
    inject: [join(repoRoot, 'scripts/standalone/package-root.ts')],
    plugins: [
      moduleUrls({ repoRoot, urlOf: (installed) => `__faultlineModuleUrl(${JSON.stringify(installed)})`, resolveAs: '__faultlineNoResolve' }),
      standaloneModules(repoRoot),
    ],
    // the llama.cpp runtime (an optional dependency with native binaries per platform) stays outside the
    // executable: `engine serve --runtime llama.cpp` there ends in the runtime-missing error with its hint
    external: ['node-llama-cpp'],
    ...options,
  });
  if (result.warnings.length)
    throw new Error(`esbuild warnings:\n${result.warnings.map((w) => `${w.location?.file ?? ''}:${w.location?.line ?? ''} ${w.text}`).join('\n')}`);
}

/** Writes outDir/faultline.cjs (the main script) and outDir/shard-worker.js (the engine's worker). */
export async function bundleStandalone(repoRoot: string, outDir: string): Promise<{ main: string; worker: string }> {
  const main = join(outDir, 'faultline.cjs');
  const worker = join(outDir, 'shard-worker.js');
  await bundleOne(repoRoot, {
    entryPoints: [join(repoRoot, 'scripts/standalone/entry.ts')],
    outfile: main,
    define: { FAULTLINE_ROOT_FROM: '"executable"' },
  });
  await bundleOne(repoRoot, {
    entryPoints: [join(repoRoot, 'src/engine/shard-worker.ts')],
    outfile: worker,
    define: { FAULTLINE_ROOT_FROM: '"bundle-file"' },
  });
  return { main, worker };
}
