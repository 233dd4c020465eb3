import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../core/errors.js';
import { dtypeInfo } from './dtypes.js';
import { sampleTensors } from './sample-tensors.js';
import {
  openSafetensors,
  openSafetensorsSource,
  parseSafetensors,
  readSafetensors,
  serializeSafetensors,
  writeSafetensors,
} from './safetensors.js';
import { makeTensor, tensorsBitEqual, type Tensor } from './tensor.js';
import { countingSource } from './test-sources.js';

function withTmp(fn: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-st-'));
  try {
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A file from a header (object or raw JSON text) and a data region of the given length. */
function rawFile(header: unknown, dataLength: number, lengthField?: bigint): Uint8Array {
  const json = new TextEncoder().encode(typeof header === 'string' ? header : JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + dataLength);
  new DataView(out.buffer).setBigUint64(0, lengthField ?? BigInt(json.length), true);
  out.set(json, 8);
  return out;
}

function rejects(bytes: Uint8Array, pattern: RegExp): void {
  assert.throws(
    () => parseSafetensors(bytes, 'x.safetensors'),
    (e: unknown) => {
      assert.ok(e instanceof UserError, `expected a UserError, got ${String(e)}`);
      assert.match(e.message, pattern);
      assert.match(e.message, /^x\.safetensors: /);
      assert.equal(e.code, 'E_SAFETENSORS');
      return true;
    },
  );
}

test('every dtype round-trips bit for bit, with metadata, in memory and through a file', () => {
  const tensors = sampleTensors();
  const metadata = { format: 'pt', note: 'ünïcode ✓', '0': 'integer-like key' };
  const bytes = serializeSafetensors(tensors, metadata);
  const parsed = parseSafetensors(bytes);
  assert.deepEqual({ ...parsed.metadata }, metadata);
  assert.deepEqual([...parsed.tensors.keys()].sort(), Object.keys(tensors).sort());
  for (const [name, t] of Object.entries(tensors))
    assert.ok(tensorsBitEqual(parsed.tensors.get(name)!, t), name);
  withTmp((dir) => {
    const path = join(dir, 'all.safetensors');
    writeSafetensors(path, new Map(Object.entries(tensors)), metadata);
    assert.deepEqual(readFileSync(path), Buffer.from(bytes)); // file and in-memory serialisations agree
    const back = readSafetensors(path);
    for (const [name, t] of Object.entries(tensors))
      assert.ok(tensorsBitEqual(back.tensors.get(name)!, t), name);
  });
});

test('layout: 8-byte aligned data start, space padding, offsets aligned to item size and contiguous', () => {
  const bytes = serializeSafetensors(sampleTensors());
  const n = Number(new DataView(bytes.buffer).getBigUint64(0, true));
  assert.equal((8 + n) % 8, 0);
  const text = new TextDecoder().decode(bytes.subarray(8, 8 + n));
  assert.match(text, /^\{.*\} *$/s);
  const f = openSafetensorsSource(countingSource(bytes));
  let expected = 0;
  for (const e of f.header.entries) {
    assert.equal(e.begin, expected);
    assert.equal(e.begin % dtypeInfo(e.dtype).itemSize, 0, `${e.name} aligned`);
    expected = e.end;
  }
  assert.equal(8 + n + expected, bytes.length);
  // Header key order is the layout order, the integer-like name included.
  const keys = [...text.matchAll(/"([^"]+)":\{"dtype"/g)].map((m) => m[1]);
  assert.deepEqual(
    keys,
    f.header.entries.map((e) => e.name),
  );
});

test('positional reads: one tensor is read without touching the others', () => {
  const big = makeTensor('F32', [256, 1024]); // 1 MiB
  const small = makeTensor('I32', [3], new Int32Array([1, 2, 3]));
  const src = countingSource(serializeSafetensors({ big, small }));
  const f = openSafetensorsSource(src);
  const headerBytes = src.bytesRead();
  assert.ok(headerBytes < 200);
  assert.deepEqual(f.info('big'), { dtype: 'F32', shape: [256, 1024] });
  assert.deepEqual(Array.from(f.read('small').data as Int32Array), [1, 2, 3]);
  assert.equal(src.bytesRead() - headerBytes, 12);
  assert.deepEqual(f.names, ['big', 'small']);
  assert.ok(f.has('small') && !f.has('nope'));
  assert.throws(
    () => f.read('nope'),
    (e: unknown) =>
      e instanceof UserError &&
      /no tensor named "nope"/.test(e.message) &&
      /it holds: big, small/.test(e.hint ?? ''),
  );
});

test('an empty file of tensors ("{}") is valid; a missing file is a UserError', () => {
  assert.equal(parseSafetensors(rawFile({}, 0)).tensors.size, 0);
  assert.throws(
    () => openSafetensors('/nonexistent/x.safetensors'),
    (e: unknown) => e instanceof UserError && /no such file/.test(e.message),
  );
  withTmp((dir) =>
    assert.throws(
      () => openSafetensors(dir),
      (e: unknown) => e instanceof UserError,
    ),
  );
});

const t = (dtype: string, shape: unknown, offsets: unknown) => ({ dtype, shape, data_offsets: offsets });

test('hostile headers are rejected with clear errors', () => {
  rejects(new Uint8Array(5), /only 5 bytes long/);
  rejects(rawFile({}, 0, 1n << 62n), /exceeds the 100000000-byte cap/);
  rejects(rawFile({}, 0, 100_000_000n), /larger than the rest of the file/);
  rejects(rawFile('{"a"', 0), /not valid JSON/);
  const badUtf8 = rawFile('{"a":1}', 0);
  badUtf8[10] = 0xff;
  rejects(badUtf8, /not valid UTF-8/);
  rejects(rawFile('[1,2]', 0), /must be a JSON object/);
  rejects(rawFile('null', 0), /must be a JSON object/);
  rejects(rawFile({ a: t('F7', [1], [0, 1]) }, 1), /unknown dtype "F7"/);
  rejects(rawFile({ a: t('F8_E8M0', [1], [0, 1]) }, 1), /unsupported dtype "F8_E8M0"/);
  rejects(rawFile({ a: 5 }, 0), /entry must be an object/);
  rejects(rawFile({ a: t('F32', 'x', [0, 4]) }, 4), /shape must be an array of non-negative integers/);
  rejects(rawFile({ a: t('F32', [-1], [0, 4]) }, 4), /shape must be/);
  rejects(rawFile({ a: t('F32', [1.5], [0, 4]) }, 4), /shape must be/);
  rejects(rawFile({ a: t('F32', [2 ** 40, 2 ** 40], [0, 4]) }, 4), /impossibly large/);
  rejects(rawFile({ a: t('F32', [1], [0]) }, 4), /data_offsets must be \[begin, end\]/);
  rejects(rawFile({ a: t('F32', [1], [4, 0]) }, 4), /end before they begin/);
  rejects(rawFile({ a: t('F32', [2], [0, 4]) }, 4), /needs 8 bytes but data_offsets \[0, 4\] span 4/);
  rejects(rawFile({ a: t('F32', [1], [0, 4]), b: t('F32', [1], [2, 6]) }, 6), /overlap/);
  rejects(
    rawFile({ a: t('F32', [1], [0, 4]), b: t('F32', [1], [8, 12]) }, 12),
    /bytes \[4, 8\) .* belong to no tensor/,
  );
  rejects(rawFile({ a: t('F32', [1], [4, 8]) }, 8), /bytes \[0, 4\)/);
  rejects(rawFile({ a: t('F32', [1], [0, 4]) }, 6), /2 bytes after the last tensor/);
  rejects(rawFile({ a: t('F32', [1], [0, 4]) }, 2), /ends at data byte 4 but the file holds only 2/);
  rejects(rawFile({ a: t('F32', [2 ** 30], [0, 2 ** 32]) }, 4), /ends at data byte 4294967296/);
  rejects(rawFile({ __metadata__: { a: 1 } }, 0), /"__metadata__" value for "a" must be a string/);
  rejects(rawFile({ __metadata__: ['x'] }, 0), /"__metadata__" must be an object/);
});

test('the writer refuses inconsistent tensors and a "__metadata__" tensor name', () => {
  const bad: Tensor = { dtype: 'F32', shape: [3], data: new Float32Array(2) };
  assert.throws(
    () => serializeSafetensors({ a: { ...bad, data: new Float32Array(2) } }),
    /needs 3 elements, data has 2/,
  );
  assert.throws(
    () => serializeSafetensors({ a: { dtype: 'BF16', shape: [2], data: new Float32Array(2) } as never }),
    /must be a Uint16Array/,
  );
  assert.throws(() => serializeSafetensors({ __metadata__: makeTensor('U8', [1]) }), UserError);
  withTmp((dir) => {
    assert.throws(
      () => writeSafetensors(join(dir, 'missing', 'x.safetensors'), {}),
      (e: unknown) => e instanceof UserError && /cannot write/.test(e.message),
    );
    // A failed write leaves no temporary file behind and does not clobber an existing file.
    const path = join(dir, 'keep.safetensors');
    writeFileSync(path, 'old');
    assert.throws(() => writeSafetensors(path, { a: { ...bad } }));
    assert.equal(readFileSync(path, 'utf8'), 'old');
  });
});
