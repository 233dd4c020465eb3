/**
 * The committed llama-server flag table (data/llama-cpp-flags/<tag>.json) is what our extractor
 * makes of the llama.cpp source node-llama-cpp bundles: re-extracting from a fresh clone of that
 * bundle must give it byte for byte (a clone and a parse of common/arg.cpp: seconds, hence slow).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../src/core/package-root.js';

const dir = join(packageRoot, 'data', 'llama-cpp-flags');

test('re-extracting from a fresh clone of node-llama-cpp’s llama.cpp bundle reproduces the table', (t) => {
  const pkg = join(packageRoot, 'node_modules', 'node-llama-cpp', 'llama');
  if (!existsSync(join(pkg, 'gitRelease.bundle'))) {
    t.skip('node_modules/node-llama-cpp/llama/gitRelease.bundle is not installed');
    return;
  }
  const { tag } = JSON.parse(readFileSync(join(pkg, 'llama.cpp.info.json'), 'utf8')) as { tag: string };
  const committed = join(dir, `${tag}.json`);
  assert.ok(
    existsSync(committed),
    `node-llama-cpp bundles llama.cpp ${tag} but there is no ${committed}: run generate.sh`,
  );
  const tmp = mkdtempSync(join(tmpdir(), 'llama-cpp-flags-'));
  try {
    const out = join(tmp, 'table.json');
    execFileSync('sh', [join(packageRoot, 'scripts', 'llama-cpp-flags', 'generate.sh')], {
      env: { ...process.env, OUT: out, TMPDIR: tmp },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    assert.equal(readFileSync(out, 'utf8'), readFileSync(committed, 'utf8'));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
