/**
 * The lean install holds: package-lock.json points node-llama-cpp's unused binary packages at the
 * empty stand-in by a path from the repository root (npm once wrote it relative to node-llama-cpp,
 * and `npm ci` then dropped the whole optional tree without a word), and the install has the exact
 * node-llama-cpp version and, on linux-x64, its CPU binary package.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../core/package-root.js';
import { NODE_LLAMA_CPP_VERSION } from './binding.js';

const STAND_IN = 'vendor/absent-optional-binary';

test('package-lock.json: the unused binary packages link to the stand-in from the root', () => {
  const lock = JSON.parse(readFileSync(join(packageRoot, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { resolved?: string; link?: boolean; version?: string }>;
  };
  const pkg = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as {
    overrides: Record<string, string>;
    optionalDependencies: Record<string, string>;
  };
  assert.equal(pkg.optionalDependencies['node-llama-cpp'], NODE_LLAMA_CPP_VERSION);
  const overridden = Object.keys(pkg.overrides).filter((n) => n.startsWith('@node-llama-cpp/'));
  assert.ok(overridden.length >= 6);
  for (const name of overridden) {
    const entry = lock.packages[`node_modules/${name}`];
    assert.deepEqual(
      { resolved: entry?.resolved, link: entry?.link },
      { resolved: STAND_IN, link: true },
      name,
    );
  }
  assert.ok(lock.packages[STAND_IN], `the lock has no package entry for ${STAND_IN}`);
  assert.equal(lock.packages['node_modules/node-llama-cpp']?.version, NODE_LLAMA_CPP_VERSION);
  assert.ok(existsSync(join(packageRoot, STAND_IN, 'package.json')));
});

test('installed: node-llama-cpp at the pinned version, and its linux-x64 CPU binaries where this is linux-x64', () => {
  // its exports map hides package.json; read the installed file directly
  const manifest = join(packageRoot, 'node_modules/node-llama-cpp/package.json');
  assert.ok(
    existsSync(manifest),
    'node-llama-cpp is not installed (npm ci dropped the optional dependency?)',
  );
  const version = (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
  assert.equal(version, NODE_LLAMA_CPP_VERSION, 'npm ci installed another node-llama-cpp, or none');
  if (process.platform === 'linux' && process.arch === 'x64')
    assert.ok(
      existsSync(join(packageRoot, 'node_modules/@node-llama-cpp/linux-x64/bins/linux-x64/llama-addon.node')),
    );
});
