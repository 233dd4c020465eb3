// Interop with Python's safetensors + torch. The files under test/fixtures/tensors/python/ were
// written on the GPU machine by tools/interop/check_safetensors.py (torch 2.11.0+cu130,
// safetensors 0.8.0; see the README there); the same run loaded faultline's files and reported
// the result in interop-report.json.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { encodeFp8Array } from '../numerics/fp8.js';
import { f32ArrayToBf16Bits } from '../numerics/bf16.js';
import { f32ArrayToF16Bits } from '../numerics/fp16.js';
import { dtypeInfo } from './dtypes.js';
import { sampleTensors } from './sample-tensors.js';
import { readSafetensors, serializeSafetensors } from './safetensors.js';
import { openCheckpoint } from './safetensors-index.js';
import { tensorBytes, tensorsBitEqual, toFloat32, type Tensor } from './tensor.js';

const fixtures = new URL('../../test/fixtures/tensors/', import.meta.url);
const path = (rel: string) => new URL(rel, fixtures).pathname;

interface Expected {
  metadata: Record<string, string> | null;
  tensors: Record<string, { dtype: string; shape: number[]; hex: string; values: string[] }>;
}

function sameValue(a: string, b: string): boolean {
  if (a === b) return true;
  const x = a === '-0' ? -0 : Number(a.replace('inf', 'Infinity'));
  const y = b === '-0' ? -0 : Number(b.replace('inf', 'Infinity'));
  return (Number.isNaN(x) && Number.isNaN(y)) || Object.is(x, y);
}

function decodedStrings(t: Tensor): string[] {
  if (dtypeInfo(t.dtype).kind !== 'float')
    return Array.from(t.data as ArrayLike<number | bigint>, (v) => String(v));
  const values = t.dtype === 'F64' ? Array.from(t.data as Float64Array) : Array.from(toFloat32(t));
  return values.map((v) => (Object.is(v, -0) ? '-0' : String(v)));
}

test('files written by Python safetensors + torch read exactly: dtype, shape, bytes, values, metadata', () => {
  const expected = JSON.parse(readFileSync(path('python/py-all-dtypes.expected.json'), 'utf8')) as Expected;
  const file = readSafetensors(path('python/py-all-dtypes.safetensors'));
  assert.deepEqual({ ...file.metadata }, expected.metadata);
  assert.deepEqual([...file.tensors.keys()].sort(), Object.keys(expected.tensors).sort());
  const dtypesSeen = new Set<string>();
  for (const [name, e] of Object.entries(expected.tensors)) {
    const t = file.tensors.get(name)!;
    assert.equal(t.dtype, e.dtype, name);
    assert.deepEqual(t.shape, e.shape, name);
    assert.equal(Buffer.from(tensorBytes(t)).toString('hex'), e.hex, name);
    const got = decodedStrings(t);
    assert.equal(got.length, e.values.length, name);
    got.forEach((v, i) =>
      assert.ok(sameValue(v, e.values[i]), `${name}[${i}]: faultline ${v}, torch ${e.values[i]}`),
    );
    dtypesSeen.add(t.dtype);
  }
  assert.equal(dtypesSeen.size, 15, 'every dtype faultline reads came from Python');
});

test("torch's CPU and CUDA casts of 3105 float32 inputs equal faultline's torch-cast / RNE encoders bit for bit", () => {
  const { tensors, metadata } = readSafetensors(path('python/py-casts.safetensors'));
  assert.equal(metadata.devices, 'cpu,cuda');
  const x = tensors.get('x')!.data as Float32Array;
  assert.equal(x.length, 3105);
  const nanInput = (i: number) => Number.isNaN(x[i]);
  for (const dev of ['cpu', 'cuda']) {
    const e4 = encodeFp8Array(x, 'e4m3fn', 'torch-cast');
    const e5 = encodeFp8Array(x, 'e5m2', 'torch-cast');
    assert.deepEqual(tensors.get(`${dev}_e4m3`)!.data, e4, `${dev} e4m3`);
    assert.deepEqual(tensors.get(`${dev}_e5m2`)!.data, e5, `${dev} e5m2`);
    // BF16/F16 NaN payloads differ between producers: compare NaN inputs as "is NaN".
    const bf = f32ArrayToBf16Bits(x);
    const hf = f32ArrayToF16Bits(x);
    const tbf = tensors.get(`${dev}_bf16`)!.data as Uint16Array;
    const thf = tensors.get(`${dev}_f16`)!.data as Uint16Array;
    let mismatches = 0;
    for (let i = 0; i < x.length; i++) {
      if (nanInput(i)) {
        if ((tbf[i] & 0x7fff) <= 0x7f80 || (thf[i] & 0x7fff) <= 0x7c00) mismatches++;
      } else if (tbf[i] !== bf[i] || thf[i] !== hf[i]) mismatches++;
    }
    assert.equal(mismatches, 0, dev);
  }
});

test('the faultline-written fixtures the Python run checked are what the writer produces today', () => {
  // If the writer changes, regenerate with tools/interop/make-fixtures.ts and rerun the Python check.
  const report = JSON.parse(readFileSync(path('python/interop-report.json'), 'utf8')) as {
    ok: boolean;
    faultline_written: Record<string, { problems: string[] }>;
  };
  assert.equal(report.ok, true);
  for (const name of ['all-dtypes', 'no-metadata', 'no-tensors'])
    assert.deepEqual(report.faultline_written[`${name}.safetensors`].problems, [], name);
  const current = serializeSafetensors(sampleTensors(), {
    format: 'pt',
    writer: 'faultline',
    note: 'ünïcode ✓',
  });
  assert.ok(Buffer.from(current).equals(readFileSync(path('faultline/all-dtypes.safetensors'))));
});

test('a sharded checkpoint saved by huggingface_hub (3 shards + index) opens and equals the unsharded save', () => {
  const ckpt = openCheckpoint(path('python/sharded'));
  const reference = readSafetensors(path('python/sharded-reference.safetensors')).tensors;
  try {
    assert.equal(ckpt.files.length, 3);
    assert.deepEqual(ckpt.names, [...reference.keys()].sort());
    assert.equal(ckpt.metadata.total_size, 1540);
    for (const name of ckpt.names) assert.ok(tensorsBitEqual(ckpt.read(name), reference.get(name)!), name);
  } finally {
    ckpt.close();
  }
});
