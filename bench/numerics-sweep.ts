// Exhaustive float32 sweep of the FP8 and BF16 encoders against independent references, reproducing
// the mismatch counts of test/fixtures/numerics/fp8-cast-table.json (measured on an H200), plus an
// encode-throughput measurement against a same-run anchor (a float32 scale-and-copy loop).
//
//   node --import tsx bench/numerics-sweep.ts            # every 16th magnitude, both signs (seconds)
//   node --import tsx bench/numerics-sweep.ts --full     # all 2^32 patterns (minutes, one core)
//
// The reference walks the float32 magnitudes in ascending order alongside the ascending FP8 (or BF16)
// grid and moves to the next code once the input passes the midpoint (ties to the even code): no bit
// tricks shared with src/numerics. Each magnitude is checked with both sign bits.
import { readFileSync } from 'node:fs';
import { decodeFp8, encodeFp8FromF32Bits, quantizeToFp8Codes, type Fp8Format } from '../src/numerics/fp8.js';
import { bf16BitsToF32, f32ToBf16Bits } from '../src/numerics/bf16.js';
import { f32FromBits } from '../src/numerics/float-bits.js';

const full = process.argv.includes('--full');
const step = full ? 1 : 16;
const table = JSON.parse(
  readFileSync(new URL('../test/fixtures/numerics/fp8-cast-table.json', import.meta.url), 'utf8'),
) as {
  exhaustive_gpu: Record<string, { mismatch: number }>;
};

function sweepFp8(format: Fp8Format) {
  const maxCode = format === 'e4m3fn' ? 0x7e : 0x7b;
  const grid: number[] = [];
  for (let c = 0; c <= maxCode; c++) grid.push(decodeFp8(c, format));
  grid.push(format === 'e4m3fn' ? 480 : 65536); // the value the next code would have (overflow)
  const nosatOverflow = format === 'e4m3fn' ? 0x7f : 0x7c;
  let idx = 0;
  const counts = { satfinite_vs_sat: 0, torch_vs_nosat: 0, torch_vs_sat: 0, checked: 0 };
  for (let m = 0; m <= 0x7fffffff; m += step) {
    let sat = 0x7f; // reference NaN (sign added below)
    let nosat = 0x7f;
    if (m <= 0x7f800000) {
      const x = f32FromBits(m);
      while (idx < grid.length - 1) {
        const mid = (grid[idx] + grid[idx + 1]) / 2;
        if (x > mid || (x === mid && (idx + 1) % 2 === 0)) idx++;
        else break;
      }
      sat = idx > maxCode ? maxCode : idx;
      nosat = idx > maxCode ? nosatOverflow : idx;
    }
    for (let sign = 0; sign < 2; sign++) {
      const bits = sign ? (m | 0x80000000) >>> 0 : m;
      const s = sign ? 0x80 : 0;
      const sf = encodeFp8FromF32Bits(bits, format, 'satfinite');
      const tc = encodeFp8FromF32Bits(bits, format, 'torch-cast');
      if (sf !== (sat | s)) counts.satfinite_vs_sat++;
      if (tc !== (nosat | s)) counts.torch_vs_nosat++;
      if (tc !== (sat | s)) counts.torch_vs_sat++;
      counts.checked++;
    }
  }
  return counts;
}

function sweepBf16() {
  let code = 0;
  let mismatches = 0;
  // Past the max finite bf16 (0x7F7F) the next "value" is 2^128, where IEEE rounding puts inf.
  const next = (c: number) => (c === 0x7f7f ? 2 ** 128 : bf16BitsToF32(c + 1));
  for (let m = 0; m <= 0x7fffffff; m += step) {
    let ref = 0x7fc0;
    if (m <= 0x7f800000) {
      const x = f32FromBits(m);
      while (code < 0x7f80) {
        const mid = (bf16BitsToF32(code) + next(code)) / 2;
        if (x > mid || (x === mid && (code + 1) % 2 === 0)) code++;
        else break;
      }
      ref = code;
    }
    for (let sign = 0; sign < 2; sign++) {
      const got = f32ToBf16Bits(f32FromBits(sign ? (m | 0x80000000) >>> 0 : m));
      const want = ref === 0x7fc0 ? 0x7fc0 : ref | (sign ? 0x8000 : 0);
      if (got !== want) mismatches++;
    }
  }
  return mismatches;
}

function throughput() {
  const n = 1 << 22;
  const src = new Float32Array(n);
  for (let i = 0; i < n; i++) src[i] = Math.sin(i) * 300;
  const out = new Uint8Array(n);
  const copy = new Float32Array(n);
  const time = (fn: () => void) => {
    fn();
    const t0 = performance.now();
    for (let r = 0; r < 5; r++) fn();
    return (performance.now() - t0) / 5;
  };
  const anchorMs = time(() => {
    for (let i = 0; i < n; i++) copy[i] = src[i] * 0.5;
  });
  const quantizeMs = time(() => quantizeToFp8Codes(src, 0.037, 'e4m3fn', 'satfinite', out));
  return { n, anchorMs, quantizeMs };
}

const t0 = performance.now();
const e4 = sweepFp8('e4m3fn');
const e5 = sweepFp8('e5m2');
const bf = sweepBf16();
const seconds = (performance.now() - t0) / 1000;
const g = table.exhaustive_gpu;
const rows: [string, number, number][] = [
  ['e4m3 satfinite vs sat', e4.satfinite_vs_sat, g.nv_e4m3_satfinite_vs_sat.mismatch],
  ['e4m3 torch-cast vs nosat', e4.torch_vs_nosat, g.torch_cuda_e4m3_vs_nosat.mismatch],
  ['e4m3 torch-cast vs sat', e4.torch_vs_sat, g.torch_cuda_e4m3_vs_sat.mismatch],
  ['e5m2 satfinite vs sat', e5.satfinite_vs_sat, g.nv_e5m2_satfinite_vs_sat.mismatch],
  ['e5m2 torch-cast vs nosat', e5.torch_vs_nosat, g.torch_cuda_e5m2_vs_nosat.mismatch],
  ['bf16 RNE (NaN→0x7FC0) vs rne', bf, 0],
];
console.log(
  `sweep: ${full ? 'all 2^32 float32 patterns' : `every ${step}th magnitude, both signs`} (${e4.checked} inputs per format), ${seconds.toFixed(1)} s`,
);
console.log(
  `${'comparison'.padEnd(30)} ${'faultline'.padStart(12)} ${full ? 'H200 table'.padStart(12) : ''}`,
);
for (const [name, ours, measured] of rows)
  console.log(`${name.padEnd(30)} ${String(ours).padStart(12)} ${full ? String(measured).padStart(12) : ''}`);
if (full) {
  const same = rows.every(([, ours, measured]) => ours === measured);
  console.log(same ? 'all counts equal the measured table' : 'COUNTS DIFFER from the measured table');
  if (!same) process.exitCode = 1;
}
const tp = throughput();
console.log(
  `quantizeToFp8Codes (e4m3, satfinite, scale): ${(tp.n / tp.quantizeMs / 1e3).toFixed(0)} M values/s = ${(tp.quantizeMs / tp.anchorMs).toFixed(2)}× the time of a float32 scale-and-copy loop (anchor: ${tp.anchorMs.toFixed(2)} ms for ${tp.n} values)`,
);
