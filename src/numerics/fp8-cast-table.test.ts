// Bit-exact agreement with the measured cast table (H200, torch 2.11.0+cu130, CUDA 13.0).
// Fixture: test/fixtures/numerics/fp8-cast-table.json (see the README there for provenance).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  encodeFp8FromF32Bits,
  FP8_E4M3_DECODE_LUT,
  FP8_E5M2_DECODE_LUT,
  type Fp8Format,
  type Fp8Mode,
} from './fp8.js';
import { f32ToBf16Bits } from './bf16.js';
import { f32Bits, f32FromBits } from './float-bits.js';

interface SpecialRow {
  x: string;
  bits: string;
  nv_e4m3_sat: string;
  nv_e4m3_nosat: string;
  nv_e5m2_sat: string;
  nv_e5m2_nosat: string;
  nv_bf16: string;
  torch_cpu_e4m3: string;
  torch_cuda_e4m3: string;
  torch_cpu_e5m2: string;
}
interface CastTable {
  torch: string;
  special_table: SpecialRow[];
  decode_check: Record<'e4m3fn' | 'e5m2', { mismatching_codes: number[]; max: number }>;
  exhaustive_gpu: Record<string, { mismatch: number; by_class: Record<string, number> }>;
}

const table = JSON.parse(
  readFileSync(new URL('../../test/fixtures/numerics/fp8-cast-table.json', import.meta.url), 'utf8'),
) as CastTable;

// Which of our (format, mode) pairs each measured column must equal bit for bit.
const fp8Columns: [keyof SpecialRow, Fp8Format, Fp8Mode][] = [
  ['nv_e4m3_sat', 'e4m3fn', 'satfinite'],
  ['nv_e4m3_nosat', 'e4m3fn', 'torch-cast'], // equal except on negative NaN, which the table has no row for
  ['torch_cpu_e4m3', 'e4m3fn', 'torch-cast'],
  ['torch_cuda_e4m3', 'e4m3fn', 'torch-cast'],
  ['nv_e5m2_sat', 'e5m2', 'satfinite'],
  ['nv_e5m2_nosat', 'e5m2', 'torch-cast'],
  ['torch_cpu_e5m2', 'e5m2', 'torch-cast'],
];

test('special_table: 0 mismatches in every FP8 column', () => {
  assert.equal(table.special_table.length, 43);
  const mismatches: string[] = [];
  for (const row of table.special_table) {
    const bits = Number.parseInt(row.bits, 16);
    assert.ok(bits >>> 31 === 0 || !Number.isNaN(f32FromBits(bits)), 'no negative-NaN row expected');
    for (const [column, format, mode] of fp8Columns) {
      const got = encodeFp8FromF32Bits(bits, format, mode);
      const want = Number.parseInt(row[column], 16);
      if (got !== want) mismatches.push(`${row.x} ${column}: got 0x${got.toString(16)}, want ${row[column]}`);
    }
  }
  assert.deepEqual(mismatches, []);
});

test('special_table: the requested x is the float32 that was converted', () => {
  for (const row of table.special_table) {
    const x =
      row.x === 'nan' ? NaN : row.x === 'inf' ? Infinity : row.x === '-inf' ? -Infinity : Number(row.x);
    assert.equal(f32Bits(x), Number.parseInt(row.bits, 16), row.x);
  }
});

test('special_table: BF16 equals __float2bfloat16_rn, NaN compared as NaN', () => {
  let checked = 0;
  for (const row of table.special_table) {
    const got = f32ToBf16Bits(f32FromBits(Number.parseInt(row.bits, 16)));
    const want = Number.parseInt(row.nv_bf16, 16);
    const isNan = (b: number) => (b & 0x7fff) > 0x7f80;
    if (isNan(want)) assert.ok(isNan(got), row.x);
    else assert.equal(got, want, row.x);
    checked++;
  }
  assert.equal(checked, 43);
});

test('decode_check: torch agreed with the closed form on all codes; the LUT max matches', () => {
  assert.deepEqual(table.decode_check.e4m3fn.mismatching_codes, []);
  assert.deepEqual(table.decode_check.e5m2.mismatching_codes, []);
  const maxFinite = (lut: Float32Array) => Math.max(...Array.from(lut).filter(Number.isFinite));
  assert.equal(maxFinite(FP8_E4M3_DECODE_LUT), table.decode_check.e4m3fn.max);
  assert.equal(maxFinite(FP8_E5M2_DECODE_LUT), table.decode_check.e5m2.max);
});

test('the exhaustive counts the sweeps reproduce are the ones recorded', () => {
  // The sweeps (fp8-sweep.test.ts over ranges, bench/numerics-sweep.ts over all 2^32) assert these rules;
  // here we pin that the recorded numbers are what the rules predict, so a changed fixture is noticed.
  const g = table.exhaustive_gpu;
  const finiteAbove464 = 0x7f800000 - 0x43e80001; // float32 patterns with 464 < |x| < inf, one sign
  assert.equal(g.torch_cuda_e4m3_vs_sat.mismatch, 2 * finiteAbove464 + 2);
  assert.equal(g.torch_cuda_e4m3_vs_sat.by_class.overflow_ge448, 2 * finiteAbove464);
  const negativeNans = 0xffffffff - 0xff800000; // 0xFF800001 ..= 0xFFFFFFFF
  for (const k of [
    'nv_e4m3_satfinite_vs_sat',
    'nv_e4m3_nosat_vs_nosat',
    'nv_e5m2_satfinite_vs_sat',
    'nv_e5m2_nosat_vs_nosat',
  ]) {
    assert.equal(g[k].mismatch, negativeNans, k);
  }
  assert.equal(g.torch_cuda_e4m3_vs_nosat.mismatch, 0);
  assert.equal(g.torch_cuda_e5m2_vs_nosat.mismatch, 0);
  const nanPatterns = 2 * 0x7fffff; // both signs, mantissa ≠ 0
  assert.equal(g.nv_bf16_rn_vs_rne.mismatch, nanPatterns);
  assert.equal(g.torch_cuda_bf16_vs_rne.mismatch, nanPatterns);
});
