import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { isUserError, UserError } from '../core/errors.js';
import { memorySource } from './byte-source.js';
import { parseNpy, readNpy, readNpySource, serializeNpy } from './npy.js';
import { makeTensor, tensorsBitEqual, toFloat32, type Tensor } from './tensor.js';
import { f16BitsToF32 } from '../numerics/fp16.js';

const dir = new URL('../../test/fixtures/tensors/npy/', import.meta.url);
const expected = JSON.parse(readFileSync(new URL('expected.json', dir), 'utf8')) as {
  files: Record<string, { dtype: string; shape: number[]; values: (number | string)[] }>;
};

function valuesOf(t: Tensor): (number | string)[] {
  if (t.dtype === 'I64' || t.dtype === 'U64') return Array.from(t.data as BigInt64Array, (v) => v.toString());
  if (t.dtype === 'F16') return Array.from(t.data as Uint16Array, (b) => show(f16BitsToF32(b)));
  if (t.dtype === 'F32' || t.dtype === 'F64') return Array.from(t.data as Float64Array, show);
  if (t.dtype === 'BOOL') return Array.from(t.data as Uint8Array);
  return Array.from(t.data as Int32Array, (v) => String(v));
}
function show(v: number): number | string {
  return Number.isNaN(v) ? 'nan' : v === Infinity ? 'inf' : v === -Infinity ? '-inf' : v;
}

test('every numpy-written fixture reads with the right dtype, shape and values (row-major)', () => {
  const names = Object.keys(expected.files);
  assert.ok(names.length >= 27);
  for (const name of names) {
    const want = expected.files[name];
    const t = readNpy(new URL(name, dir).pathname);
    assert.equal(t.dtype, want.dtype, name);
    assert.deepEqual(t.shape, want.shape, name);
    const got = valuesOf(t);
    // Floats: numpy gives float64 values of the stored numbers; compare after rounding to the file's precision.
    const wantValues = want.values.map((v) =>
      typeof v === 'number' && t.dtype === 'F32' ? Math.fround(v) : v,
    );
    assert.deepEqual(
      got.map((v) => (Object.is(v, -0) ? '-0' : v)),
      wantValues.map((v) => (Object.is(v, -0) ? '-0' : v)),
      name,
    );
  }
});

test('serializeNpy round-trips, and its header is what numpy writes (64-byte aligned, v1)', () => {
  const ts = [
    makeTensor('F32', [2, 3], new Float32Array([1, 2, 3, 4, 5, -0])),
    makeTensor('I64', [2], new BigInt64Array([-5n, 9007199254740993n])),
    makeTensor('F16', [1], new Uint16Array([0x3c00])),
    makeTensor('BOOL', [3], new Uint8Array([1, 0, 1])),
    makeTensor('F64', [], new Float64Array([2.5])),
  ];
  for (const t of ts) {
    const bytes = serializeNpy(t);
    const headerEnd = 10 + new DataView(bytes.buffer).getUint16(8, true);
    assert.equal(headerEnd % 64, 0);
    assert.equal(bytes[headerEnd - 1], 0x0a);
    assert.ok(tensorsBitEqual(parseNpy(bytes), t));
  }
  assert.throws(() => serializeNpy(makeTensor('BF16', [1])), RangeError);
  // A numpy-written file is reproduced byte for byte.
  const numpyFile = readFileSync(new URL('f4_v2.npy', dir)); // v2 differs only in the header length field
  const ours = serializeNpy(makeTensor('F32', [5], new Float32Array([0, 1, 2, 3, 4])));
  assert.deepEqual(Buffer.from(ours.subarray(ours.length - 20)), numpyFile.subarray(numpyFile.length - 20));
  const numpyV1 = readFileSync(new URL('b1.npy', dir));
  assert.deepEqual(Buffer.from(serializeNpy(makeTensor('BOOL', [4], new Uint8Array([1, 0, 1, 1])))), numpyV1);
});

function npy(dict: string, data = new Uint8Array(0), version = 1): Uint8Array {
  const text = new TextEncoder().encode(dict);
  const lenBytes = version === 1 ? 2 : 4;
  const out = new Uint8Array(8 + lenBytes + text.length + data.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, version, 0]);
  const dv = new DataView(out.buffer);
  if (version === 1) dv.setUint16(8, text.length, true);
  else dv.setUint32(8, text.length, true);
  out.set(text, 8 + lenBytes);
  out.set(data, 8 + lenBytes + text.length);
  return out;
}

function rejects(bytes: Uint8Array, pattern: RegExp): void {
  assert.throws(
    () => parseNpy(bytes, 'x.npy'),
    (e: unknown) => {
      assert.ok(e instanceof UserError, String(e));
      assert.match(e.message, pattern);
      assert.match(e.message, /^x\.npy: /);
      return true;
    },
  );
}

test('hostile or unsupported .npy files are rejected with clear errors', () => {
  const ok = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  assert.deepEqual(Array.from(toFloat32(parseNpy(npy(ok, new Uint8Array(8))))), [0, 0]);
  rejects(new Uint8Array(4), /too short/);
  rejects(new TextEncoder().encode('PK\x03\x04 this is a zip file'), /magic/);
  const v9 = npy(ok, new Uint8Array(8));
  v9[6] = 9;
  rejects(v9, /unsupported \.npy format version 9/);
  const lying = npy(ok, new Uint8Array(8), 2);
  new DataView(lying.buffer).setUint32(8, 0xfffffff0, true);
  rejects(lying, /exceeds the 1048576-byte cap/);
  new DataView(lying.buffer).setUint32(8, 5000, true);
  rejects(lying, /larger than the rest of the file/);
  rejects(npy(ok, new Uint8Array(4)), /needs 8 data bytes but the file holds 4/);
  rejects(npy(ok, new Uint8Array(12)), /4 bytes after the array data/);
  rejects(
    npy("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", new Uint8Array(8)),
    /unsupported dtype '<c8'/,
  );
  rejects(npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }"), /structured dtypes/);
  rejects(npy("{'descr': '=f4', 'fortran_order': False, 'shape': (1,), }"), /native byte order/);
  rejects(npy("{'descr': '|f4', 'fortran_order': False, 'shape': (1,), }"), /needs a byte order/);
  rejects(npy("{'descr': '<f4', 'shape': (1,), }"), /keys must be descr, fortran_order and shape/);
  rejects(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}"), /keys must be/);
  rejects(npy("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}"), /repeated/);
  rejects(npy("{'descr': '<f4', 'fortran_order': 0, 'shape': (1,), }"), /must be True or False/);
  rejects(npy("{'descr': '<f4', 'fortran_order': False, 'shape': 3, }"), /'shape' must be a tuple/);
  rejects(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }"), /non-negative integer/);
  rejects(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }"), /too large/);
  rejects(
    npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }"),
    /impossibly large/,
  );
  rejects(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), } trailing"), /unexpected text/);
  rejects(npy("{'descr': '<f4"), /unterminated string/);
  const badUtf8 = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }", new Uint8Array(0), 3);
  badUtf8[20] = 0xff;
  rejects(badUtf8, /not valid UTF-8/);
  assert.throws(
    () => readNpy('/nonexistent.npy'),
    (e: unknown) => e instanceof UserError && /no such file/.test(e.message),
  );
});

test('fuzz: mutated and truncated .npy files give a tensor or a UserError, never a read past the end', () => {
  const seeds = ['f4_le.npy', 'i8_be.npy', 'i4_fortran.npy', 'f4_v3.npy'].map(
    (n) => new Uint8Array(readFileSync(new URL(n, dir))),
  );
  fc.assert(
    fc.property(
      fc.constantFrom(...seeds),
      fc.array(fc.tuple(fc.nat(200), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }),
      fc.nat(300),
      (seed, flips, cut) => {
        const b = seed.slice(0, Math.max(0, seed.length - (cut % 40)));
        for (const [at, v] of flips) if (at < b.length) b[at] = v;
        const src = memorySource(b, 'fuzz.npy');
        const guarded = {
          ...src,
          read: (o: number, n: number) => {
            if (o + n > b.length) throw new Error('read past end');
            return src.read(o, n);
          },
        };
        try {
          readNpySource(guarded);
          return true;
        } catch (e) {
          if (isUserError(e)) return true;
          throw e;
        }
      },
    ),
    { numRuns: 2000 },
  );
});
