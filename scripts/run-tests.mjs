#!/usr/bin/env node
// Runs the project's *.test.ts files through node:test + tsx, by tier:
//   unit  src/ and bench/ (beside the code; in-process, small random models)
//   e2e   test/ (the real CLI and servers, the trained model), less test/slow/
//   slow  test/slow/ (the full seed matrix run: minutes; `.ci/run` runs it after `npm test`)
// Node 20 does not expand globs and `tsx --test` with no files runs nothing, so the file list is
// built here and passed explicitly; an empty list is an error, not a pass.
//
//   node scripts/run-tests.mjs                    unit + e2e (what `npm test` runs)
//   node scripts/run-tests.mjs --tier unit        one tier (unit, e2e, slow; repeatable)
//   node scripts/run-tests.mjs src/engine lint    files whose path contains any filter, in any tier
//
// Files run one more at a time than the machine has cores (os.availableParallelism() + 1; the slow
// tier alone, one per core): many
// end-to-end files spend much of their time waiting (a server starting, Slurm's queue polled, a
// signal's grace period), and the extra file keeps the cores busy meanwhile. The end-to-end files,
// the longest, start first so that no long file is left running alone at the end. The wall time and
// the load are printed at the end.
import { readdirSync, statSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const TIERS = {
  unit: { roots: ['src', 'bench'], skip: [] },
  e2e: { roots: ['test'], skip: ['test/slow'] },
  slow: { roots: ['test/slow'], skip: [] },
};
const skipNames = new Set(['node_modules', 'dist', 'fixtures']);

function collect(dir, skip, out) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    const path = join(dir, name);
    if (skipNames.has(name) || skip.includes(path)) continue;
    if (statSync(path).isDirectory()) collect(path, skip, out);
    else if (name.endsWith('.test.ts') && !name.endsWith('.browser.test.ts')) out.push(path);
  }
  return out;
}

function parseArgs(argv) {
  const tiers = [];
  const filters = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--tier') {
      const tier = argv[++i];
      if (!(tier in TIERS)) {
        console.error(`run-tests: unknown tier ${JSON.stringify(tier)} (known: ${Object.keys(TIERS).join(', ')})`);
        process.exit(2);
      }
      tiers.push(tier);
    } else filters.push(argv[i]);
  }
  // filters search every tier; no arguments: the tiers `npm test` runs
  if (!tiers.length) tiers.push(...(filters.length ? Object.keys(TIERS) : ['unit', 'e2e']));
  return { tiers, filters };
}

const { tiers, filters } = parseArgs(process.argv.slice(2));
// slow and e2e before unit: the longest files first
const order = ['slow', 'e2e', 'unit'];
let files = [...tiers]
  .sort((a, b) => order.indexOf(a) - order.indexOf(b))
  .flatMap((t) => TIERS[t].roots.flatMap((r) => collect(r, TIERS[t].skip, [])).sort());
if (filters.length) files = files.filter((f) => filters.some((o) => f.includes(o)));
if (files.length === 0) {
  console.error(`run-tests: no test files found (tiers ${tiers.join(', ')}${filters.length ? `, filters ${filters.join(' ')}` : ''})`);
  process.exit(1);
}
// the slow tier is whole matrix runs, each busy on its own: one per core
const concurrency = tiers.length === 1 && tiers[0] === 'slow' ? availableParallelism() : availableParallelism() + 1;
const started = Date.now();
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', `--test-concurrency=${concurrency}`, ...files], {
  stdio: 'inherit',
});
const load = loadavg()
  .map((l) => l.toFixed(1))
  .join(' ');
console.log(`run-tests: ${files.length} files (${tiers.join(' + ')}), ${concurrency} at once, ${((Date.now() - started) / 1000).toFixed(1)} s wall (load ${load})`);
process.exit(result.status ?? 1);
