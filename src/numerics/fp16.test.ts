import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  f16BitsToF32,
  f16BitsToF32Array,
  f32ArrayToF16Bits,
  f32ToF16Bits,
  FP16_MAX,
  roundToF16,
} from './fp16.js';
import { f32Bits, f32FromBits } from './float-bits.js';

const isF16Nan = (h: number) => (h & 0x7fff) > 0x7c00;

// Closed form from the IEEE binary16 definition, written independently of fp16.ts.
function expected(h: number): number {
  const s = h >> 15 ? -1 : 1;
  const e = (h >> 10) & 31;
  const m = h & 1023;
  if (e === 31) return m ? NaN : s * Infinity;
  return e === 0 ? s * (m / 1024) * Math.pow(2, -14) : s * (1 + m / 1024) * Math.pow(2, e - 15);
}

test('all 65536 fp16 codes: decode equals the closed form; encode(decode(c)) == c; NaN → 0x7E00|sign', () => {
  for (let h = 0; h < 65536; h++) {
    const v = f16BitsToF32(h);
    const want = expected(h);
    if (isF16Nan(h)) {
      assert.ok(Number.isNaN(v));
      continue;
    }
    assert.ok(Object.is(v, want), `0x${h.toString(16)}`);
    assert.equal(f32ToF16Bits(v), h);
  }
  assert.equal(f32ToF16Bits(f32FromBits(0xffc00001)), 0xfe00);
  assert.equal(f32ToF16Bits(NaN), 0x7e00);
  assert.equal(f16BitsToF32(0x7bff), FP16_MAX);
});

test('ties and neighbours between every pair of adjacent fp16 codes, and overflow at 65520', () => {
  for (const sign of [0, 0x8000]) {
    for (let m = 0; m < 0x7c00; m++) {
      const lo = sign | m;
      const hi = lo + 1;
      const a = Math.abs(f16BitsToF32(lo));
      const b = m === 0x7bff ? 65536 : Math.abs(f16BitsToF32(hi)); // past max, IEEE rounds as if 2^16 existed
      const mid = (a + b) / 2;
      const s = sign ? -1 : 1;
      const even = lo % 2 === 0 ? lo : hi;
      assert.equal(f32ToF16Bits(s * mid), even, `tie 0x${lo.toString(16)}`);
      assert.equal(f32ToF16Bits(s * f32FromBits(f32Bits(mid) - 1)), lo);
      assert.equal(f32ToF16Bits(s * f32FromBits(f32Bits(mid) + 1)), hi);
    }
  }
  assert.equal(f32ToF16Bits(65519.99), 0x7bff);
  assert.equal(f32ToF16Bits(65520), 0x7c00);
  assert.equal(f32ToF16Bits(-1e9), 0xfc00);
  assert.equal(f32ToF16Bits(2 ** -25), 0); // half the min subnormal: tie → 0
  assert.equal(f32ToF16Bits(3 * 2 ** -25), 2);
});

test('array paths equal the scalar path', () => {
  const a = new Float32Array(5000);
  for (let i = 0; i < a.length; i++) a[i] = Math.tan(i) * 1000;
  const codes = f32ArrayToF16Bits(a);
  const back = f16BitsToF32Array(codes);
  for (let i = 0; i < a.length; i++) {
    assert.equal(codes[i], f32ToF16Bits(a[i]));
    assert.ok(Object.is(back[i], f16BitsToF32(codes[i])));
  }
});

test('property: fp16 rounding is monotone and picks a nearest value', () => {
  const f = fc.float({ noNaN: true, min: -65504, max: 65504 });
  fc.assert(
    fc.property(f, f, (x, y) => {
      const [a, b] = x <= y ? [x, y] : [y, x];
      const ra = roundToF16(a);
      if (!(ra <= roundToF16(b))) return false;
      // Neighbours of ra: no representable value is strictly closer to a.
      const h = f32ToF16Bits(ra);
      for (const n of [h - 1, h + 1]) {
        if (n < 0 || n > 0xffff || isF16Nan(n)) continue;
        const w = f16BitsToF32(n);
        if (Number.isFinite(w) && (n & 0x7fff) !== 0 && Math.abs(w - a) < Math.abs(ra - a)) return false;
      }
      return true;
    }),
    { numRuns: 5000 },
  );
});
