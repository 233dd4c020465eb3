import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../core/errors.js';
import { openCheckpoint } from './safetensors-index.js';
import { writeSafetensors } from './safetensors.js';
import { makeTensor, tensorsBitEqual } from './tensor.js';

function withTmp(fn: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-ckpt-'));
  try {
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const w = makeTensor('BF16', [2, 2], new Uint16Array([0x3f80, 0x4000, 0x4040, 0x4080]));
const ks = makeTensor('F32', [], new Float32Array([0.5]));
const qs = makeTensor('F32', [], new Float32Array([0.25]));

function writeIndex(
  dir: string,
  weightMap: Record<string, unknown>,
  metadata: unknown = { total_size: 12 },
): void {
  writeFileSync(
    join(dir, 'model.safetensors.index.json'),
    JSON.stringify({ metadata, weight_map: weightMap }, null, 2),
  );
}

/** models/a (two shards) and models/b (its own scales shard + a symlink to a's weights shard). */
function twoCheckpoints(root: string): { a: string; b: string } {
  const a = join(root, 'a');
  const b = join(root, 'b');
  mkdirSync(a);
  mkdirSync(b);
  writeSafetensors(join(a, 'model-00001-of-00002.safetensors'), { w });
  writeSafetensors(join(a, 'model-00002-of-00002.safetensors'), { k_scale: ks });
  writeIndex(a, { w: 'model-00001-of-00002.safetensors', k_scale: 'model-00002-of-00002.safetensors' });
  symlinkSync('../a/model-00001-of-00002.safetensors', join(b, 'model-00001-of-00002.safetensors'));
  writeSafetensors(join(b, 'model-00002-of-00002.safetensors'), { k_scale: ks, q_scale: qs });
  writeIndex(b, {
    w: 'model-00001-of-00002.safetensors',
    k_scale: 'model-00002-of-00002.safetensors',
    q_scale: 'model-00002-of-00002.safetensors',
  });
  return { a, b };
}

test('sharded checkpoints, one sharing a shard through a symlink into a sibling directory', () => {
  withTmp((root) => {
    const { a, b } = twoCheckpoints(root);
    const ca = openCheckpoint(a);
    assert.deepEqual(ca.names, ['k_scale', 'w']);
    assert.deepEqual(ca.metadata, { total_size: 12 });
    assert.ok(tensorsBitEqual(ca.read('w'), w));
    ca.close();
    const cb = openCheckpoint(b);
    assert.deepEqual(cb.names, ['k_scale', 'q_scale', 'w']);
    assert.deepEqual(cb.info('w'), { dtype: 'BF16', shape: [2, 2] });
    assert.ok(tensorsBitEqual(cb.read('w'), w));
    assert.ok(tensorsBitEqual(cb.read('q_scale'), qs));
    assert.equal(cb.files.length, 2);
    assert.throws(
      () => cb.read('nope'),
      (e: unknown) => e instanceof UserError && /no tensor named "nope"/.test(e.message),
    );
    cb.close();
  });
});

test('a single model.safetensors, a .safetensors path given directly, and an empty directory', () => {
  withTmp((dir) => {
    writeSafetensors(join(dir, 'model.safetensors'), { w, k_scale: ks }, { format: 'pt' });
    const c = openCheckpoint(dir);
    assert.deepEqual(c.names, ['k_scale', 'w']);
    assert.deepEqual(c.metadata, { format: 'pt' });
    assert.ok(tensorsBitEqual(c.read('k_scale'), ks));
    c.close();
    const f = openCheckpoint(join(dir, 'model.safetensors'));
    assert.ok(f.has('w'));
    f.close();
    mkdirSync(join(dir, 'empty'));
    assert.throws(
      () => openCheckpoint(join(dir, 'empty')),
      /holds neither model\.safetensors\.index\.json nor model\.safetensors/,
    );
    assert.throws(() => openCheckpoint(join(dir, 'missing')), /no such checkpoint/);
  });
});

test('bad indexes are UserErrors that point at the index file', () => {
  withTmp((dir) => {
    writeSafetensors(join(dir, 's.safetensors'), { w });
    const expectError = (pattern: RegExp) =>
      assert.throws(
        () => openCheckpoint(dir),
        (e: unknown) => {
          assert.ok(e instanceof UserError, String(e));
          assert.match(e.message, pattern);
          assert.match(e.at?.file ?? '', /model\.safetensors\.index\.json$/);
          return true;
        },
      );
    writeFileSync(
      join(dir, 'model.safetensors.index.json'),
      '{\n  "weight_map": {\n    "w": "s.safetensors",\n  }\n}',
    );
    expectError(/not valid JSON/);
    assert.throws(
      () => openCheckpoint(dir),
      (e: unknown) => (e as UserError).at?.line === 4, // the line of the trailing comma's closing brace
    );
    writeIndex(dir, { w: 5 });
    expectError(/weight_map\["w"\] must be a file name/);
    writeIndex(dir, { w: '/etc/passwd' });
    expectError(/must be a path inside the checkpoint directory/);
    writeIndex(dir, { w: '../x/s.safetensors' });
    expectError(/must be a path inside/);
    writeIndex(dir, { w: 'gone.safetensors' });
    expectError(/names shard "gone\.safetensors", which does not exist/);
    writeIndex(dir, { w: 's.safetensors', v: 's.safetensors' });
    expectError(/maps "v" to "s\.safetensors", but that shard has no such tensor/);
    writeIndex(dir, { w: 's.safetensors' }, 'nope');
    expectError(/"metadata" must be an object/);
    writeFileSync(join(dir, 'model.safetensors.index.json'), '[]');
    expectError(/must be an object with a "weight_map" object/);
  });
});

test('a broken symlink shard is reported as missing', () => {
  withTmp((dir) => {
    symlinkSync('../nowhere/x.safetensors', join(dir, 'x.safetensors'));
    writeIndex(dir, { w: 'x.safetensors' });
    assert.throws(() => openCheckpoint(dir), /does not exist/);
  });
});
