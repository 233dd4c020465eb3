import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_DTYPES, dtypeInfo, isDType } from './dtypes.js';
import {
  fromFloat32,
  makeTensor,
  numel,
  reshape,
  selectRow,
  sliceRows,
  stridesOf,
  tensorsBitEqual,
  toFloat32,
} from './tensor.js';
import { sampleTensors } from './sample-tensors.js';

test('numel and strides, including scalars, empty dims and refusal of bad shapes', () => {
  assert.equal(numel([]), 1);
  assert.equal(numel([2, 0, 5]), 0);
  assert.equal(numel([2, 3, 4]), 24);
  assert.deepEqual(stridesOf([2, 3, 4]), [12, 4, 1]);
  assert.throws(() => numel([-1]), RangeError);
  assert.throws(() => numel([2 ** 30, 2 ** 30, 2 ** 30]), RangeError);
});

test('makeTensor checks length and array type; zero-fills when no data is given', () => {
  for (const d of ALL_DTYPES) {
    const t = makeTensor(d, [2, 3]);
    assert.equal(t.data.length, 6);
    assert.ok(t.data instanceof dtypeInfo(d).arrayType);
  }
  assert.throws(() => makeTensor('F32', [3], new Float32Array(2)), RangeError);
  assert.throws(() => makeTensor('BF16', [2], new Float32Array(2) as never), TypeError);
  assert.ok(isDType('F8_E4M3') && !isDType('toString') && !isDType('F7'));
});

test('views share memory: reshape, sliceRows, selectRow', () => {
  const t = makeTensor(
    'F32',
    [4, 3],
    Float32Array.from({ length: 12 }, (_, i) => i),
  );
  const r = reshape(t, [2, -1]);
  assert.deepEqual(r.shape, [2, 6]);
  const rows = sliceRows(t, 1, 3);
  assert.deepEqual(rows.shape, [2, 3]);
  assert.deepEqual(Array.from(rows.data), [3, 4, 5, 6, 7, 8]);
  const row = selectRow(t, 2);
  assert.deepEqual(row.shape, [3]);
  row.data[0] = 100;
  assert.equal(t.data[6], 100);
  assert.equal(r.data[6], 100);
  assert.equal(rows.data[3], 100);
  assert.throws(() => reshape(t, [5, -1]), RangeError);
  assert.throws(() => sliceRows(t, 2, 5), RangeError);
  assert.throws(() => selectRow(makeTensor('F32', []), 0), RangeError);
});

test('toFloat32 decodes every dtype of the sample set exactly', () => {
  const s = sampleTensors();
  assert.deepEqual(Array.from(toFloat32(s.bf16)), [
    0,
    -0,
    1,
    -1,
    3.3895313892515355e38,
    9.183549615799121e-41,
    Infinity,
    -Infinity,
    NaN,
    0.10009765625,
  ]);
  assert.deepEqual(Array.from(toFloat32(s.f16)), [
    0,
    -0,
    1,
    -1,
    65504,
    2 ** -24,
    Infinity,
    -Infinity,
    NaN,
    0.333251953125,
  ]);
  const e4 = toFloat32(s.f8_e4m3);
  assert.equal(e4[0x7e], 448);
  assert.ok(Number.isNaN(e4[0xff]));
  assert.equal(toFloat32(s.f8_e5m2)[0xfc], -Infinity);
  assert.deepEqual(Array.from(toFloat32(s.i16)), [0, -1, 32767, -32768]);
  assert.deepEqual(Array.from(toFloat32(s.i64)).slice(0, 2), [0, -1]);
  assert.equal(toFloat32(s.u64)[1], 2 ** 64);
  assert.deepEqual(Array.from(toFloat32(s.bool)), [1, 0, 1, 1, 0]);
  assert.equal(toFloat32(s.f64)[5], 0); // 5e-324 rounds to float32 zero
  const f = toFloat32(s.f32);
  f[0] = 9;
  assert.equal((s.f32.data as Float32Array)[0], 0, 'toFloat32 returns a copy');
});

test('fromFloat32 encodes and round-trips through toFloat32 for values exact in the target', () => {
  const v = new Float32Array([0, -0, 1, -2, 0.5, 448, -448, 2 ** -9]);
  for (const d of ['F64', 'F32', 'F16', 'BF16', 'F8_E4M3', 'F8_E5M2'] as const) {
    const t = fromFloat32(v, d, [2, 4]);
    assert.deepEqual(t.shape, [2, 4]);
    const back = toFloat32(t);
    assert.deepEqual(
      Array.from(back).map((x) => (Object.is(x, -0) ? '-0' : x)),
      Array.from(v).map((x) => (Object.is(x, -0) ? '-0' : x)),
      d,
    );
  }
  assert.deepEqual(Array.from(fromFloat32(new Float32Array([1000]), 'F8_E4M3').data), [0x7e]);
  assert.deepEqual(
    Array.from(fromFloat32(new Float32Array([1000]), 'F8_E4M3', [1], 'torch-cast').data),
    [0x7f],
  );
  assert.ok(tensorsBitEqual(fromFloat32(v, 'BF16'), fromFloat32(v, 'BF16')));
  assert.ok(!tensorsBitEqual(fromFloat32(v, 'BF16'), fromFloat32(v, 'F16')));
});
