/**
 * An esbuild plugin for bundling faultline's own modules: each keeps the `import.meta.url` its file
 * has in an installed package (dist/…/file.js), however the bundle lays the modules out. So every
 * `new URL('../../data/…', import.meta.url)` — data files, docs, the engine's worker script — resolves
 * as it does from dist/. `urlOf` says how a bundle writes that URL; files without `import.meta` load
 * unchanged, and so do dependencies.
 */
import type { Plugin } from 'esbuild';
import { readFile } from 'node:fs/promises';
import { relative, sep } from 'node:path';

export interface ModuleUrlOptions {
  repoRoot: string;
  /** The expression a bundle evaluates for the module whose installed path is `installed` (`dist/cli/main.js`). */
  urlOf: (installed: string) => string;
  /** What `import.meta.resolve` becomes; left as it is when not given (an ES module bundle keeps it). */
  resolveAs?: string;
}

export function moduleUrls(o: ModuleUrlOptions): Plugin {
  return {
    name: 'faultline-module-urls',
    setup(b) {
      b.onLoad({ filter: /\.(ts|js)$/ }, async (args) => {
        const rel = relative(o.repoRoot, args.path).split(sep).join('/');
        if (rel.startsWith('node_modules/') || rel.startsWith('..')) return undefined;
        const text = await readFile(args.path, 'utf8');
        if (!text.includes('import.meta')) return undefined;
        const installed = rel.replace(/^src\//, 'dist/').replace(/\.ts$/, '.js');
        let contents = text.replaceAll('import.meta.url', o.urlOf(installed));
        if (o.resolveAs !== undefined) contents = contents.replaceAll('import.meta.resolve', o.resolveAs);
        if (o.resolveAs !== undefined && contents.includes('import.meta'))
          throw new Error(`${rel}: an import.meta use the bundle cannot map`);
        return { contents, loader: args.path.endsWith('.ts') ? 'ts' : 'js' };
      });
    },
  };
}
