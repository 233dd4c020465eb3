import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  decodeFp8,
  dequantizeFp8,
  encodeFp8,
  encodeFp8Array,
  encodeFp8FromF32Bits,
  FP8_E4M3_MAX,
  FP8_E5M2_MAX,
  fp8Max,
  isFp8Nan,
  quantizeToFp8Codes,
  roundArrayToFp8,
  type Fp8Format,
  type Fp8Mode,
} from './fp8.js';
import { f32Bits, f32FromBits } from './float-bits.js';

const formats: Fp8Format[] = ['e4m3fn', 'e5m2'];
const modes: Fp8Mode[] = ['satfinite', 'torch-cast'];

// The closed forms, written from the format definitions (not from fp8.ts).
function expectedDecode(code: number, format: Fp8Format): number {
  const [eBits, mBits, bias] = format === 'e4m3fn' ? [4, 3, 7] : [5, 2, 15];
  const sign = code >> 7 ? -1 : 1;
  const e = (code >> mBits) & ((1 << eBits) - 1);
  const m = code & ((1 << mBits) - 1);
  const eMax = (1 << eBits) - 1;
  if (format === 'e4m3fn' && e === eMax && m === (1 << mBits) - 1) return NaN;
  if (format === 'e5m2' && e === eMax) return m === 0 ? sign * Infinity : NaN;
  if (e === 0) return sign * (m / (1 << mBits)) * Math.pow(2, 1 - bias);
  return sign * (1 + m / (1 << mBits)) * Math.pow(2, e - bias);
}

const nextUpF32 = (x: number) => f32FromBits(f32Bits(x) + 1); // for positive finite x
const nextDownF32 = (x: number) => f32FromBits(f32Bits(x) - 1);

test('decode: all 256 codes of both formats equal the closed form (NaN as NaN, ±0 kept)', () => {
  for (const format of formats) {
    let nans = 0;
    for (let c = 0; c < 256; c++) {
      const got = decodeFp8(c, format);
      const want = expectedDecode(c, format);
      if (Number.isNaN(want)) {
        assert.ok(Number.isNaN(got), `${format} 0x${c.toString(16)}`);
        assert.ok(isFp8Nan(c, format));
        nans++;
      } else {
        assert.ok(Object.is(got, want), `${format} 0x${c.toString(16)}: ${got} vs ${want}`);
        assert.ok(!isFp8Nan(c, format));
      }
    }
    assert.equal(nans, format === 'e4m3fn' ? 2 : 6);
  }
  assert.equal(decodeFp8(0x7e, 'e4m3fn'), FP8_E4M3_MAX);
  assert.equal(decodeFp8(0x7b, 'e5m2'), FP8_E5M2_MAX);
  assert.equal(decodeFp8(0x01, 'e4m3fn'), 2 ** -9);
  assert.equal(decodeFp8(0x01, 'e5m2'), 2 ** -16);
  assert.equal(decodeFp8(0xfc, 'e5m2'), -Infinity);
});

test('encode(decode(c)) == c for every non-NaN code, both modes (E5M2 ±inf only in torch-cast)', () => {
  for (const format of formats) {
    for (const mode of modes) {
      for (let c = 0; c < 256; c++) {
        const v = decodeFp8(c, format);
        if (Number.isNaN(v)) continue;
        const got = encodeFp8(v, format, mode);
        if (!Number.isFinite(v) && mode === 'satfinite') assert.equal(got, c === 0x7c ? 0x7b : 0xfb);
        else assert.equal(got, c, `${format} ${mode} 0x${c.toString(16)}`);
      }
    }
  }
});

test('ties and neighbours between every pair of adjacent codes, both signs', () => {
  for (const format of formats) {
    const lastFinite = format === 'e4m3fn' ? 0x7e : 0x7b;
    for (let lo = 0; lo < lastFinite; lo++) {
      const hi = lo + 1; // codes of one sign are ordered by value
      const a = decodeFp8(lo, format);
      const b = decodeFp8(hi, format);
      const mid = (a + b) / 2; // exact: at most one more mantissa bit than the FP8 values
      assert.equal(Math.fround(mid), mid);
      const even = lo % 2 === 0 ? lo : hi;
      for (const mode of modes) {
        for (const sign of [0, 0x80]) {
          const s = sign ? -1 : 1;
          assert.equal(encodeFp8(s * mid, format, mode), even | sign, `${format} tie ${mid}`);
          assert.equal(encodeFp8(s * nextDownF32(mid), format, mode), lo | sign, `${format} below ${mid}`);
          assert.equal(encodeFp8(s * nextUpF32(mid), format, mode), hi | sign, `${format} above ${mid}`);
        }
      }
    }
  }
});

test('overflow: the rounding limit and beyond, per mode', () => {
  // E4M3: 464 is the tie between 448 (0x7E, even) and the NaN slot 0x7F → 448 in both modes.
  for (const mode of modes) assert.equal(encodeFp8(464, 'e4m3fn', mode), 0x7e);
  const above464 = nextUpF32(464);
  assert.equal(encodeFp8(above464, 'e4m3fn', 'satfinite'), 0x7e);
  assert.equal(encodeFp8(above464, 'e4m3fn', 'torch-cast'), 0x7f);
  assert.equal(encodeFp8(-above464, 'e4m3fn', 'torch-cast'), 0xff);
  assert.equal(encodeFp8(Infinity, 'e4m3fn', 'satfinite'), 0x7e);
  assert.equal(encodeFp8(-Infinity, 'e4m3fn', 'satfinite'), 0xfe);
  assert.equal(encodeFp8(-Infinity, 'e4m3fn', 'torch-cast'), 0xff);
  assert.equal(encodeFp8(3.4e38, 'e4m3fn', 'satfinite'), 0x7e);
  // E5M2: 61440 is the tie between 57344 (0x7B, odd) and inf (0x7C, even) → inf in torch.
  assert.equal(encodeFp8(nextDownF32(61440), 'e5m2', 'torch-cast'), 0x7b);
  assert.equal(encodeFp8(61440, 'e5m2', 'torch-cast'), 0x7c);
  assert.equal(encodeFp8(61440, 'e5m2', 'satfinite'), 0x7b);
  assert.equal(encodeFp8(-1e30, 'e5m2', 'torch-cast'), 0xfc);
  assert.equal(encodeFp8(-1e30, 'e5m2', 'satfinite'), 0xfb);
  assert.equal(encodeFp8(-Infinity, 'e5m2', 'satfinite'), 0xfb);
  // Values beyond float32 range become ±inf in float32 first.
  assert.equal(encodeFp8(1e300, 'e5m2', 'torch-cast'), 0x7c);
});

test('NaN: satfinite returns 0x7F for either sign (NVIDIA drops the sign); torch-cast keeps it', () => {
  const negativeNanBits = [0xff800001, 0xffc00000, 0xffffffff];
  const positiveNanBits = [0x7f800001, 0x7fc00000, 0x7fffffff];
  for (const format of formats) {
    for (const b of negativeNanBits) {
      assert.equal(encodeFp8FromF32Bits(b, format, 'satfinite'), 0x7f);
      assert.equal(encodeFp8FromF32Bits(b, format, 'torch-cast'), 0xff);
    }
    for (const b of positiveNanBits) {
      for (const mode of modes) assert.equal(encodeFp8FromF32Bits(b, format, mode), 0x7f);
    }
  }
});

test('subnormals: RNE down to zero, signed zero kept, carry into the smallest normal', () => {
  assert.equal(encodeFp8(2 ** -10, 'e4m3fn', 'satfinite'), 0x00); // half the min subnormal: tie → 0 (even)
  assert.equal(encodeFp8(-(2 ** -10), 'e4m3fn', 'satfinite'), 0x80);
  assert.equal(encodeFp8(nextUpF32(2 ** -10), 'e4m3fn', 'satfinite'), 0x01);
  assert.equal(encodeFp8(1.5 * 2 ** -9, 'e4m3fn', 'satfinite'), 0x02); // tie between 1 and 2 units → 2
  assert.equal(encodeFp8(7.5 * 2 ** -9, 'e4m3fn', 'satfinite'), 0x08); // tie 7 | 8 → 8 = 2^-6 (min normal)
  assert.equal(encodeFp8(2 ** -149, 'e4m3fn', 'satfinite'), 0x00);
  assert.equal(encodeFp8(2 ** -17, 'e5m2', 'satfinite'), 0x00);
  assert.equal(encodeFp8(3.5 * 2 ** -16, 'e5m2', 'satfinite'), 0x04);
  assert.equal(encodeFp8(-0, 'e5m2', 'torch-cast'), 0x80);
});

test('quantizeToFp8Codes: float32(x / scale), then encode; dequantize multiplies back in float32', () => {
  const src = new Float32Array([0, -0, 1, -1, 0.3, 1000, -1000, 12.34, NaN, Infinity, 5e-5]);
  const scale = 0.0371;
  for (const format of formats) {
    for (const mode of modes) {
      const codes = quantizeToFp8Codes(src, scale, format, mode);
      for (let i = 0; i < src.length; i++) {
        const q = Math.fround(src[i] / Math.fround(scale));
        assert.equal(codes[i], encodeFp8(q, format, mode), `${format} ${mode} ${src[i]}`);
      }
      const back = dequantizeFp8(codes, scale, format);
      for (let i = 0; i < src.length; i++) {
        const want = Math.fround(decodeFp8(codes[i], format) * Math.fround(scale));
        assert.ok(Object.is(back[i], want) || (Number.isNaN(back[i]) && Number.isNaN(want)));
      }
    }
  }
});

test('array helpers agree with the scalar encoder across chunk boundaries', () => {
  const n = 10_000; // more than one 4096-element chunk
  const src = new Float32Array(n);
  for (let i = 0; i < n; i++) src[i] = Math.sin(i * 12.9898) * 600;
  for (const format of formats) {
    for (const mode of modes) {
      const a = encodeFp8Array(src, format, mode);
      const b = quantizeToFp8Codes(src, 1, format, mode);
      const r = Float32Array.from(src);
      roundArrayToFp8(r, format, mode);
      for (let i = 0; i < n; i++) {
        const c = encodeFp8(src[i], format, mode);
        assert.equal(a[i], c);
        assert.equal(b[i], c);
        const v = decodeFp8(c, format);
        assert.ok(Object.is(r[i], v) || (Number.isNaN(r[i]) && Number.isNaN(v)));
      }
    }
  }
  // A view into a larger buffer (non-zero byteOffset) is read in place.
  const big = new Float32Array(16).fill(3);
  const view = big.subarray(5, 9);
  view[0] = 449;
  assert.deepEqual(Array.from(encodeFp8Array(view, 'e4m3fn', 'satfinite')), [0x7e, 0x44, 0x44, 0x44]);
  assert.throws(() => quantizeToFp8Codes(src, 1, 'e4m3fn', 'satfinite', new Uint8Array(3)), RangeError);
});

const float32 = fc.float({ noNaN: true }); // every finite float32 and ±inf, ±0

test('property: encoding is monotone (non-decreasing in value), both formats, satfinite', () => {
  fc.assert(
    fc.property(float32, float32, fc.constantFrom(...formats), (x, y, format) => {
      const [a, b] = x <= y ? [x, y] : [y, x];
      const va = decodeFp8(encodeFp8(a, format, 'satfinite'), format);
      const vb = decodeFp8(encodeFp8(b, format, 'satfinite'), format);
      return va <= vb;
    }),
    { numRuns: 5000 },
  );
});

test('property: torch-cast stays within ±max below its rounding limit and is NaN (E4M3) / ±inf (E5M2) beyond it', () => {
  fc.assert(
    fc.property(float32, fc.constantFrom(...formats), (x, format) => {
      const v = decodeFp8(encodeFp8(x, format, 'torch-cast'), format);
      const limit = format === 'e4m3fn' ? 464 : 61440;
      const beyond = format === 'e4m3fn' ? Math.abs(x) > limit : Math.abs(x) >= limit;
      if (!beyond) return Math.abs(v) <= fp8Max(format);
      return format === 'e4m3fn' ? Number.isNaN(v) : v === Math.sign(x) * Infinity;
    }),
    { numRuns: 5000 },
  );
});

test('property: torch-cast is monotone below its rounding limit', () => {
  const inRange = fc.float({ min: -464, max: 464, noNaN: true });
  fc.assert(
    fc.property(inRange, inRange, fc.constantFrom(...formats), (x, y, format) => {
      const [a, b] = x <= y ? [x, y] : [y, x];
      return (
        decodeFp8(encodeFp8(a, format, 'torch-cast'), format) <=
        decodeFp8(encodeFp8(b, format, 'torch-cast'), format)
      );
    }),
    { numRuns: 3000 },
  );
});

test('property: the result is a nearest code (no code is strictly closer), in range', () => {
  fc.assert(
    fc.property(fc.constantFrom(...formats), fc.double({ min: -448, max: 448, noNaN: true }), (format, d) => {
      const x = Math.fround(d);
      const v = decodeFp8(encodeFp8(x, format, 'satfinite'), format);
      for (let c = 0; c < 256; c++) {
        const w = decodeFp8(c, format);
        if (Number.isFinite(w) && Math.abs(w - x) < Math.abs(v - x)) return false;
      }
      return true;
    }),
    { numRuns: 1000 },
  );
});

test('property: quantize → dequantize error is at most half a step of the FP8 grid, scaled', () => {
  fc.assert(
    fc.property(
      fc.float({ min: -400, max: 400, noNaN: true }),
      fc.double({ min: 1e-3, max: 10, noNaN: true }),
      (x, scale) => {
        const s = Math.fround(scale);
        const q = Math.fround(x / s);
        fc.pre(Math.abs(q) <= FP8_E4M3_MAX);
        const code = quantizeToFp8Codes(new Float32Array([x]), s, 'e4m3fn', 'satfinite')[0];
        const back = dequantizeFp8(new Uint8Array([code]), s, 'e4m3fn')[0];
        // E4M3 spacing near |q| is ≤ max(2^-9, |q|·2^-3); half a step, times the scale, plus float32 slack.
        const halfStep = Math.max(2 ** -10, Math.abs(q) * 2 ** -4);
        return Math.abs(back - x) <= halfStep * s * (1 + 2 ** -20) + Math.abs(x) * 2 ** -23;
      },
    ),
    { numRuns: 3000 },
  );
});

test('property: round trip of every non-NaN code through float32 bits', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 255 }), fc.constantFrom(...formats), (c, format) => {
      const v = decodeFp8(c, format);
      fc.pre(Number.isFinite(v));
      return encodeFp8FromF32Bits(f32Bits(v), format, 'satfinite') === c;
    }),
  );
});
