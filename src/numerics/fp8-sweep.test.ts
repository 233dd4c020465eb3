// Sweeps of float32 inputs against the search-based reference encoder (fp8-search-reference.ts),
// counting mismatches the way the measured table does. Whole 2^32 sweeps live in bench/numerics-sweep.ts
// (about a minute); here: a strided sweep over all patterns plus dense sweeps of the critical ranges.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeFp8FromF32Bits, type Fp8Format, type Fp8Mode } from './fp8.js';
import { referenceEncodeFp8 } from './fp8-search-reference.js';

const isNegativeNan = (b: number) => b > 0xff800000;
const isNan = (b: number) => (b & 0x7fffffff) > 0x7f800000;

interface Counts {
  n: number;
  satfiniteVsSat: number;
  torchVsNosat: number;
  torchVsSat: number;
  predictedSatfiniteVsSat: number;
  predictedTorchVsSat: number;
}

function sweep(format: Fp8Format, bitsOf: (i: number) => number, n: number): Counts {
  const c: Counts = {
    n,
    satfiniteVsSat: 0,
    torchVsNosat: 0,
    torchVsSat: 0,
    predictedSatfiniteVsSat: 0,
    predictedTorchVsSat: 0,
  };
  // Rounding limits as float32 magnitudes: torch differs from `sat` at or above them (±inf included).
  const overflowFrom = format === 'e4m3fn' ? 0x43e80001 : 0x47700000; // > 464 ; ≥ 61440
  for (let i = 0; i < n; i++) {
    const b = bitsOf(i) >>> 0;
    const enc = (mode: Fp8Mode) => encodeFp8FromF32Bits(b, format, mode);
    const sat = referenceEncodeFp8(b, format, 'sat');
    const nosat = referenceEncodeFp8(b, format, 'nosat');
    if (enc('satfinite') !== sat) c.satfiniteVsSat++;
    const torch = enc('torch-cast');
    if (torch !== nosat) c.torchVsNosat++;
    if (torch !== sat) c.torchVsSat++;
    if (isNegativeNan(b)) c.predictedSatfiniteVsSat++;
    const mag = b & 0x7fffffff;
    if (!isNan(b) && mag >= overflowFrom) c.predictedTorchVsSat++;
  }
  return c;
}

function assertTableRules(c: Counts, label: string): void {
  // The table's findings as rules: NVIDIA SATFINITE = sat except negative NaN; torch = nosat exactly;
  // torch vs sat differs exactly past the rounding limit.
  assert.equal(c.torchVsNosat, 0, `${label}: torch-cast vs nosat`);
  assert.equal(c.satfiniteVsSat, c.predictedSatfiniteVsSat, `${label}: satfinite vs sat`);
  assert.equal(c.torchVsSat, c.predictedTorchVsSat, `${label}: torch-cast vs sat`);
}

test('strided sweep over all 2^32 float32 patterns (stride 8191, ~524k inputs per format)', () => {
  const stride = 8191; // prime, so every residue class of the low bits is visited
  const n = Math.floor(0x100000000 / stride);
  for (const format of ['e4m3fn', 'e5m2'] as const) {
    const c = sweep(format, (i) => i * stride + 3, n);
    assertTableRules(c, format);
    assert.ok(c.predictedSatfiniteVsSat > 100 && c.predictedTorchVsSat > 1000, 'the sweep hits both classes');
  }
});

test('dense sweep of every float32 in [440, 500) and (-500, -440] (the CPU sample range of the table), E4M3', () => {
  const lo = 0x43dc0000; // 440.0
  const hi = 0x43fa0000; // 500.0
  const n = hi - lo;
  const e4 = sweep('e4m3fn', (i) => (i < n ? lo + i : (lo + i - n) | 0x80000000), 2 * n);
  assertTableRules(e4, 'e4m3fn [440,500)');
  // Finite |x| > 464 inside the range: (0x43fa0000 − 0x43e80001) per sign.
  assert.equal(e4.torchVsSat, 2 * (hi - 0x43e80001));
});

test('dense sweeps around E5M2 overflow, both subnormal ranges and the normal/subnormal seams', () => {
  const ranges: [Fp8Format, number, number][] = [
    ['e5m2', 0x476fc000, 0x47704000], // across 61440, the E5M2 rounding limit
    ['e5m2', 0x477fc000, 0x47804000], // across 65536, the first value handled as overflow up front
    ['e4m3fn', 0x3a000000 - 0x4000, 0x3a000000 + 0x4000], // near 2^-11 (below half the min subnormal)
    ['e4m3fn', 0x3c7f0000, 0x3c810000], // across 2^-6, the subnormal/normal seam
    ['e5m2', 0x387f0000, 0x38810000], // across 2^-14
    ['e4m3fn', 0x3b000000, 0x3b040000], // around the min subnormal 2^-9
    ['e5m2', 0x377f0000, 0x37810000], // around 2^-16 (the min subnormal)
  ];
  for (const [format, lo, hi] of ranges) {
    const n = hi - lo;
    const c = sweep(format, (i) => (i < n ? lo + i : (lo + i - n) | 0x80000000), 2 * n);
    assertTableRules(c, `${format} 0x${lo.toString(16)}`);
  }
});

test('all NaN patterns with a stride: satfinite → 0x7F, torch-cast keeps the sign', () => {
  for (const format of ['e4m3fn', 'e5m2'] as const) {
    for (let m = 1; m <= 0x7fffff; m += 977) {
      for (const sign of [0, 0x80000000]) {
        const b = (0x7f800000 | m | sign) >>> 0;
        assert.equal(encodeFp8FromF32Bits(b, format, 'satfinite'), 0x7f);
        assert.equal(encodeFp8FromF32Bits(b, format, 'torch-cast'), sign ? 0xff : 0x7f);
      }
    }
  }
});
