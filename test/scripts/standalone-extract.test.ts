/**
 * The standalone executable's asset unpacking (scripts/standalone/extract-assets.ts), on plain
 * directories: unpack once, reuse, refuse directories others could change, survive a race.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { materializeAssets, type AssetManifest } from '../../scripts/standalone/extract-assets.js';

const files: Record<string, string> = { 'data/a.txt': 'alpha', 'models/m/config.json': '{"x":1}', 'bin/tool': '#!/bin/sh\n' };
const manifest: AssetManifest = {
  id: '0123456789abcdef',
  files: Object.keys(files).map((key) => ({ key, ...(key === 'bin/tool' ? { executable: true } : {}) })),
};

function reader() {
  let reads = 0;
  const read = (key: string) => {
    reads++;
    return new TextEncoder().encode(files[key]).buffer as ArrayBuffer;
  };
  return { read, reads: () => reads };
}

const fresh = () => mkdtempSync(join(tmpdir(), 'faultline-unpack-'));

test('unpacks every asset at its key, once: a second start reuses the directory without reading', () => {
  const base = join(fresh(), 'cache');
  const r = reader();
  const dir = materializeAssets(manifest, r.read, [base]);
  assert.equal(dir, join(base, 'standalone-0123456789abcdef'));
  for (const [key, text] of Object.entries(files)) assert.equal(readFileSync(join(dir, key), 'utf8'), text);
  assert.equal(statSync(join(dir, 'bin/tool')).mode & 0o111, 0o111);
  assert.equal(statSync(join(dir, 'data/a.txt')).mode & 0o111, 0);
  assert.equal(statSync(dir).mode & 0o777, 0o755);
  assert.equal(r.reads(), 3);
  assert.equal(materializeAssets(manifest, r.read, [base]), dir);
  assert.equal(r.reads(), 3, 'nothing read again');
  assert.deepEqual(readdirSync(base), ['standalone-0123456789abcdef'], 'no temporary directory left');
});

test('a directory others can write, or a half-made tree in the way, is passed over for the next candidate', () => {
  const root = fresh();
  const open = join(root, 'open');
  mkdirSync(open);
  chmodSync(open, 0o777);
  const blocked = join(root, 'blocked');
  mkdirSync(join(blocked, 'standalone-0123456789abcdef', 'data'), { recursive: true });
  writeFileSync(join(blocked, 'standalone-0123456789abcdef', 'data', 'a.txt'), 'tampered');
  const good = join(root, 'good');
  const dir = materializeAssets(manifest, reader().read, [open, blocked, good]);
  assert.equal(dir, join(good, 'standalone-0123456789abcdef'));
  assert.equal(readFileSync(join(dir, 'data/a.txt'), 'utf8'), 'alpha');
  assert.deepEqual(readdirSync(open), [], 'nothing unpacked into the world-writable directory');
});

test('when no candidate can be written, the error names each one and what to set', () => {
  const root = fresh();
  const notADir = join(root, 'file');
  writeFileSync(notADir, '');
  assert.throws(
    () => materializeAssets(manifest, reader().read, [join(notADir, 'cache'), join(notADir, 'other')]),
    (e: Error) => /cannot unpack its data files: tried .*file\/cache \(ENOTDIR\), .*file\/other \(ENOTDIR\); set FAULTLINE_CACHE_DIR/.test(e.message),
  );
});

test('two starts racing: the loser keeps the winner’s complete tree and removes its own', () => {
  const base = join(fresh(), 'cache');
  let raced = false;
  const read = (key: string) => {
    if (!raced) {
      raced = true;
      materializeAssets(manifest, reader().read, [base]); // the other process finishes first
    }
    return new TextEncoder().encode(files[key]).buffer as ArrayBuffer;
  };
  const dir = materializeAssets(manifest, read, [base]);
  assert.equal(dir, join(base, 'standalone-0123456789abcdef'));
  assert.deepEqual(readdirSync(base), ['standalone-0123456789abcdef']);
});
