import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRng } from '../core/rng.js';
import { roundToBf16 } from '../numerics/bf16.js';
import { applyRope, buildRopeTable, geglu, gegluBf16, matmul, matvec, rmsNorm, roundBf16 } from './ops.js';

const rng = createRng(7);
const rand = (n: number) => Float32Array.from({ length: n }, () => rng.normal());

test('matmul equals a naive x·Wᵀ (float64) to float32 rounding', () => {
  const n = 5, D = 37, O = 11;
  const x = rand(n * D), w = rand(O * D), out = new Float32Array(n * O);
  matmul(out, x, w, n, D, O);
  for (let r = 0; r < n; r++)
    for (let o = 0; o < O; o++) {
      let ref = 0;
      for (let i = 0; i < D; i++) ref += x[r * D + i] * w[o * D + i];
      assert.ok(Math.abs(out[r * O + o] - ref) <= 1e-6 * (1 + Math.abs(ref)), `(${r},${o})`);
    }
});

test('matmul is batch-invariant: every row is bit-identical to its matvec alone', () => {
  const n = 7, D = 64, O = 9;
  const x = rand(n * D), w = rand(O * D), out = new Float32Array(n * O), one = new Float32Array(O);
  matmul(out, x, w, n, D, O);
  for (let r = 0; r < n; r++) {
    matvec(one, 0, x, r * D, w, D, O);
    assert.deepEqual(out.subarray(r * O, (r + 1) * O), one);
  }
});

test('rmsNorm: Gemma (1 + w) form, rows independent, may run in place', () => {
  const x = Float32Array.from([3, 4, 0, 0, 1, 1, 1, 1]);
  const w = Float32Array.from([0, 1, 0, -0.5]);
  const out = new Float32Array(8);
  rmsNorm(out, x, w, 2, 4, 0);
  const inv = 1 / Math.sqrt(25 / 4);
  assert.ok(Math.abs(out[0] - 3 * inv) < 1e-6 && Math.abs(out[1] - 4 * inv * 2) < 1e-6);
  assert.ok(Math.abs(out[7] - 0.5) < 1e-6);
  rmsNorm(x, x, w, 2, 4, 0);
  assert.deepEqual(x, out);
});

test('RoPE rotates pairs (i, i + hd/2) by pos·theta^(-2i/hd) and keeps each pair\'s norm', () => {
  const hd = 8, theta = 10000;
  const t = buildRopeTable(theta, hd, 32, false);
  const x = rand(2 * hd); // 1 row, 2 heads
  const before = Float32Array.from(x);
  applyRope(x, [5], 1, 2, t);
  for (let h = 0; h < 2; h++)
    for (let i = 0; i < hd / 2; i++) {
      const a = before[h * hd + i], b = before[h * hd + hd / 2 + i];
      const ang = 5 * theta ** ((-2 * i) / hd);
      assert.ok(Math.abs(x[h * hd + i] - (a * Math.cos(ang) - b * Math.sin(ang))) < 1e-5);
      assert.ok(Math.abs(x[h * hd + hd / 2 + i] - (b * Math.cos(ang) + a * Math.sin(ang))) < 1e-5);
    }
  const y = Float32Array.from(before);
  applyRope(y, [0], 1, 2, t);
  assert.deepEqual(y, before); // position 0 is the identity
});

test('geglu: gelu_tanh(gate) · up', () => {
  const g = Float32Array.from([0, 1, -2]), u = Float32Array.from([5, 2, 3]);
  geglu(g, u, 3);
  const gelu = (x: number) => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3)));
  [0, 1, -2].forEach((x, i) => assert.ok(Math.abs(g[i] - gelu(x) * [5, 2, 3][i]) < 1e-6));
});

test('roundBf16 (bits through a Uint32 view) ≡ roundToBf16 element by element: ties, subnormals, ±0, ±inf, NaN; only the first len', () => {
  const bits = new Uint32Array(20000);
  for (let i = 0; i < bits.length; i++) bits[i] = (rng.next() * 2 ** 32) >>> 0;
  // ties to even both ways, the largest finite values, subnormals, zeros, infinities, NaNs
  bits.set([0x3f808000, 0x3f818000, 0x7f7fffff, 0xff7fffff, 0x00008000, 0x00018000, 0x00000001, 0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00001, 0xffffffff, 0x7f800001]);
  const x = new Float32Array(bits.buffer.slice(0));
  const expected = Float32Array.from(x, (v) => roundToBf16(v));
  const len = x.length - 5;
  roundBf16(x, len);
  const got = new Uint32Array(x.buffer), want = new Uint32Array(expected.buffer);
  for (let i = 0; i < len; i++) assert.equal(got[i], want[i], `element ${i} (bits 0x${bits[i].toString(16)})`);
  for (let i = len; i < x.length; i++) assert.equal(got[i], bits[i], 'beyond len: untouched');
});

test('gegluBf16 (activation table) ≡ geglu bit for bit on every BF16 gate value, NaN and infinities included', () => {
  const bits = new Uint32Array(65536 * 2);
  for (let i = 0; i < bits.length; i++) bits[i] = (i % 65536) << 16; // every BF16 pattern, twice
  const gate = new Float32Array(bits.buffer);
  const up = Float32Array.from({ length: gate.length }, () => rng.normal() * 4);
  const a = gate.slice(), b = gate.slice();
  geglu(a, up, a.length - 3);
  gegluBf16(b, up, b.length - 3);
  const ua = new Uint32Array(a.buffer), ub = new Uint32Array(b.buffer);
  for (let i = 0; i < a.length; i++) if (ua[i] !== ub[i]) assert.fail(`gate bits 0x${bits[i].toString(16)}: 0x${ua[i].toString(16)} vs 0x${ub[i].toString(16)}`);
  assert.equal(ub[b.length - 1], bits[b.length - 1], 'beyond len: untouched');
});
