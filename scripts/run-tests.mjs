#!/usr/bin/env node
// Runs every *.test.ts under src/ and test/ through node:test + tsx.
// Node 20 does not expand globs and `tsx --test` with no files runs nothing, so the
// file list is built here and passed explicitly; an empty list is an error, not a pass.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const roots = ['src', 'test', 'bench'];
const skip = new Set(['node_modules', 'dist', 'fixtures']);
const only = process.argv.slice(2);

function collect(dir, out) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    if (skip.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) collect(path, out);
    else if (name.endsWith('.test.ts') && !name.endsWith('.browser.test.ts')) out.push(path);
  }
  return out;
}

let files = roots.flatMap((r) => collect(r, [])).sort();
if (only.length) files = files.filter((f) => only.some((o) => f.includes(o)));
if (files.length === 0) {
  console.error('run-tests: no test files found');
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=2', ...files],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
