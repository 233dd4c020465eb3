#!/usr/bin/env node
// One TypeScript compile that does both jobs of `tsc -p tsconfig.build.json` and
// `tsc -p tsconfig.json --noEmit`: it type-checks every file tsconfig.json includes (src, tests,
// benches, scripts, tools) and writes to dist/ only the files tsconfig.build.json ships. Two tsc
// runs would parse and check src twice; on a 2-core machine that is most of a minute.
//
// A shipped file that imports a file the build leaves out (a test helper) is an error here: tsc
// would silently emit the helper too, and dist/ would carry test code.
//
//   node scripts/build.mjs            type-check everything, emit dist/ and the CLI bundle dist/cli-bundle/
//   node scripts/build.mjs --no-emit  type-check only
import { rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const emit = !process.argv.includes('--no-emit');

function readProject(file) {
  const path = join(root, file);
  const config = ts.readConfigFile(path, ts.sys.readFile);
  if (config.error) fail([config.error]);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, dirname(path), undefined, path);
  if (parsed.errors.length) fail(parsed.errors);
  return parsed;
}

function fail(diagnostics) {
  const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' };
  process.stderr.write(ts.formatDiagnosticsWithColorAndContext(diagnostics, host));
  process.stderr.write(`build: ${diagnostics.length} error(s)\n`);
  process.exit(1);
}

const all = readProject('tsconfig.json');
const shipped = readProject('tsconfig.build.json');
const shippedFiles = new Set(shipped.fileNames.map((f) => resolve(f)));
const outDir = shipped.options.outDir;
const rootDir = shipped.options.rootDir;

// the whole project's program, with the shipped build's emit options
const options = { ...all.options, ...shipped.options, noEmit: false, rootDir: root, outDir: join(root, '.build-all') };
const program = ts.createProgram({ rootNames: all.fileNames, options, projectReferences: all.projectReferences });
const diagnostics = ts.getPreEmitDiagnostics(program);
if (diagnostics.length) fail(diagnostics);

/** Shipped files that import a file the build does not ship. */
function leaks() {
  const problems = [];
  for (const file of shippedFiles) {
    const text = ts.sys.readFile(file) ?? '';
    for (const { fileName: spec } of ts.preProcessFile(text, true, true).importedFiles) {
      if (!spec.startsWith('.')) continue;
      const target = ts.resolveModuleName(spec, file, options, ts.sys).resolvedModule?.resolvedFileName;
      if (target && !target.endsWith('.d.ts') && !shippedFiles.has(resolve(target)))
        problems.push(`${relative(root, file)} imports ${relative(root, target)}, which the build leaves out (a test helper?)`);
    }
  }
  return problems;
}

if (emit) {
  const problems = leaks();
  if (problems.length) {
    process.stderr.write(problems.map((p) => `build: ${p}\n`).join(''));
    process.exit(1);
  }
  rmSync(outDir, { recursive: true, force: true });
  const staging = options.outDir;
  const toDist = (path) => join(outDir, relative(join(staging, relative(root, rootDir)), path));
  for (const file of shippedFiles) {
    const source = program.getSourceFile(file);
    const result = program.emit(source, (path, text) => {
      const target = toDist(path);
      // source maps name their source relative to where they lie: one folder less deep in dist/
      const body = path.endsWith('.map') ? fixMap(text, path, target) : text;
      ts.sys.writeFile(target, body);
    });
    if (result.diagnostics.length) fail(result.diagnostics);
  }
  // The CLI bundle bin/faultline.js runs (scripts/bundle/cli.ts says why), from the dist/ just written.
  const { tsImport } = await import('tsx/esm/api');
  const { bundleCli } = await tsImport('./bundle/cli.ts', import.meta.url);
  await bundleCli(root);
}

function fixMap(text, from, to) {
  const map = JSON.parse(text);
  map.sources = map.sources.map((s) => relative(dirname(to), resolve(dirname(from), s)));
  return JSON.stringify(map);
}
