import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  bf16BitsToF32,
  bf16BitsToF32Array,
  f32ArrayToBf16Bits,
  f32ToBf16Bits,
  roundArrayToBf16,
  roundToBf16,
} from './bf16.js';
import { f32Bits, f32FromBits } from './float-bits.js';

const isBf16Nan = (b: number) => (b & 0x7fff) > 0x7f80;

// Independent reference: pick the nearer of the two bf16 neighbours by value, ties to the even code.
function referenceBf16(bits: number): number {
  const x = f32FromBits(bits);
  if (Number.isNaN(x)) return 0x7fc0;
  const down = bits >>> 16; // truncation: same sign, magnitude ≤ |x|
  if ((bits & 0xffff) === 0) return down;
  const up = down + 1; // next magnitude (may be ±inf, which is the right rounding target)
  const dDown = Math.abs(x - bf16BitsToF32(down));
  const dUp = Math.abs(bf16BitsToF32(up) - x);
  // Past the max finite, the "up" neighbour is inf: IEEE rounds as if it were 2^128.
  const upValue = Number.isFinite(bf16BitsToF32(up)) ? dUp : Math.abs(Math.sign(x) * 2 ** 128 - x);
  if (upValue < dDown || (upValue === dDown && (up & 1) === 0)) return up;
  return down;
}

test('all 65536 bf16 codes: decode is the top half of a float32; encode(decode(c)) == c; NaN → 0x7FC0', () => {
  let nans = 0;
  for (let c = 0; c < 65536; c++) {
    const v = bf16BitsToF32(c);
    if (isBf16Nan(c)) {
      // NaN payloads do not survive JS numbers (V8 may quiet them), so only "is NaN" is checked.
      assert.ok(Number.isNaN(v));
      assert.equal(f32ToBf16Bits(v), 0x7fc0);
      nans++;
    } else {
      assert.equal(f32Bits(v), (c << 16) >>> 0);
      assert.ok(Object.is(roundToBf16(v), v));
      assert.equal(f32ToBf16Bits(v), c);
    }
  }
  assert.equal(nans, 2 * 127);
});

test('ties and neighbours between every pair of adjacent bf16 codes (both signs, all binades)', () => {
  for (const sign of [0, 0x8000]) {
    for (let m = 0; m < 0x7f80; m++) {
      const lo = sign | m;
      const hi = lo + 1;
      const tieBits = ((lo << 16) | 0x8000) >>> 0; // the float32 exactly halfway
      const even = lo % 2 === 0 ? lo : hi;
      assert.equal(f32ToBf16Bits(f32FromBits(tieBits)), even);
      assert.equal(f32ToBf16Bits(f32FromBits(tieBits - 1)), lo);
      assert.equal(f32ToBf16Bits(f32FromBits(tieBits + 1)), hi);
    }
  }
  // Overflow: the top finite bf16 0x7F7F rounds up to inf at and above its tie.
  assert.equal(f32ToBf16Bits(f32FromBits(0x7f7f8000)), 0x7f80);
  assert.equal(f32ToBf16Bits(f32FromBits(0x7f7f7fff)), 0x7f7f);
  assert.equal(f32ToBf16Bits(-3.4028234663852886e38), 0xff80);
});

test('strided sweep over all float32 patterns: f32ToBf16Bits and roundToBf16 match the by-value reference (NaN as NaN)', () => {
  const stride = 4099;
  let mismatches = 0;
  let n = 0;
  for (let b = 1; b < 0x100000000; b += stride) {
    const got = f32ToBf16Bits(f32FromBits(b));
    const want = referenceBf16(b);
    if (got !== want && !(isBf16Nan(got) && isBf16Nan(want))) mismatches++;
    const rounded = roundToBf16(f32FromBits(b));
    if (!Object.is(rounded, bf16BitsToF32(want)) && !(Number.isNaN(rounded) && isBf16Nan(want))) mismatches++;
    n++;
  }
  assert.ok(n > 1_000_000);
  assert.equal(mismatches, 0);
});

test('array paths equal the scalar path, including NaN, inf, subnormals and views', () => {
  const bits = new Uint32Array(20000);
  for (let i = 0; i < bits.length; i++) bits[i] = Math.imul(i, 2654435761) >>> 0;
  bits.set([0x7f800000, 0xff800000, 0x7fc00001, 0xffffffff, 0x00000001, 0x80000000, 0x7f7fffff]);
  const a = new Float32Array(bits.buffer);
  const codes = f32ArrayToBf16Bits(a);
  const rounded = Float32Array.from(a);
  roundArrayToBf16(rounded);
  const back = bf16BitsToF32Array(codes);
  for (let i = 0; i < a.length; i++) {
    const c = f32ToBf16Bits(a[i]);
    assert.equal(codes[i], c);
    assert.equal(f32Bits(rounded[i]) >>> 16, c);
    assert.equal(f32Bits(rounded[i]) & 0xffff, 0);
    assert.ok(Object.is(back[i], bf16BitsToF32(c)) || Number.isNaN(back[i]));
  }
  const view = a.subarray(3, 6);
  const copy = Float32Array.from(a.subarray(0, 8));
  roundArrayToBf16(view);
  assert.equal(a[2], copy[2]); // untouched outside the view
  assert.equal(a[6], copy[6]);
});

test('property: bf16 rounding is monotone, idempotent and within half an ulp (relative 2^-8)', () => {
  const f = fc.float({
    noNaN: true,
    noDefaultInfinity: true,
    min: Math.fround(-3e38),
    max: Math.fround(3e38),
  });
  fc.assert(
    fc.property(f, f, (x, y) => {
      const [a, b] = x <= y ? [x, y] : [y, x];
      const ra = roundToBf16(a);
      const rb = roundToBf16(b);
      if (!(ra <= rb)) return false;
      if (!Object.is(roundToBf16(ra), ra)) return false;
      // |x| ≥ 2^-126: relative error ≤ 2^-8; below, absolute error ≤ 2^-134 (half the bf16 subnormal step).
      return Math.abs(ra - a) <= Math.max(Math.abs(a) * 2 ** -8, 2 ** -134);
    }),
    { numRuns: 5000 },
  );
});
