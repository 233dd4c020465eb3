/**
 * The attention kernels one by one, on their float64 outputs (the attention tests only see float32
 * results, where a last-bit float64 difference usually rounds away): dots, pvExact and pvRounded
 * against the JS loops they replace, bit for bit, for K/V held widened and unwidened, even and odd
 * head dims, 1…70 keys and every first-tile length.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRng } from '../../core/rng.js';
import { roundToBf16 } from '../../numerics/bf16.js';
import type { KvView } from '../kv-cache/cache.js';
import { attentionKernels, MAX_KV_ELEMENTS, WIDEN_FROM_PASSES, type AttentionKernels } from './attention-kernels.js';

const kernels = attentionKernels();

/** A contiguous view of `keys` positions, one KV head, BF16-valued K and V. */
function randomView(keys: number, hd: number, seed: number): KvView {
  const rng = createRng(seed);
  const values = Float32Array.from({ length: 2 * keys * hd }, () => roundToBf16(rng.normal() * 2));
  return { values, length: keys, keyOffset: (p) => p * hd, valueOffset: (p) => (keys + p) * hd };
}

const bits = (xs: number[]) => Array.from(new Uint32Array(Float64Array.from(xs).buffer));

/** Fills the query pair and the score/weight slots with random values; returns the query (two heads). */
function fillInputs(k: AttentionKernels, hd: number, n: number, seed: number): { q0: number[]; q1: number[]; w0: number[]; w1: number[] } {
  const rng = createRng(seed);
  const q0 = Array.from({ length: hd }, () => Math.fround(rng.normal()));
  const q1 = Array.from({ length: hd }, () => Math.fround(rng.normal()));
  const w0 = Array.from({ length: n }, () => Math.fround(rng.next()));
  const w1 = Array.from({ length: n }, () => Math.fround(rng.next()));
  const m = k.f64;
  for (let d = 0; d < hd; d++) [m[k.at.q + 2 * d], m[k.at.q + 2 * d + 1]] = [q0[d], q1[d]];
  for (let j = 0; j < n; j++) [m[k.at.scores + 2 * j], m[k.at.scores + 2 * j + 1]] = [w0[j], w1[j]];
  return { q0, q1, w0, w1 };
}

test('dots and pvExact ≡ the float64 JS loops, bit for bit (K/V widened and unwidened, odd and even hd)', () => {
  const k = kernels!;
  for (const hd of [1, 2, 7, 16, 33, 64])
    for (const keys of [1, 3, 4, 5, 70])
      for (const passes of [1, WIDEN_FROM_PASSES]) {
        const view = randomView(keys + 2, hd, hd * 100 + keys);
        const ks = Math.fround(0.0713), vs = Math.fround(0.0291);
        const lo = 2, hi = keys + 1; // skip the first two positions: offsets into the loaded range
        k.loadKv(view, 0, 1, hi, 16, hd, ks, vs, passes);
        const label = `hd ${hd} keys ${keys} passes ${passes}`;
        const { q0, q1, w0, w1 } = fillInputs(k, hd, keys, keys);
        k.dots(lo - 1, keys);
        const dotsJs: number[] = [];
        for (let j = lo; j <= hi; j++) {
          let a = 0, b = 0;
          for (let d = 0; d < hd; d++) {
            const x = view.values[view.keyOffset(j, 0) + d] * ks;
            a += q0[d] * x;
            b += q1[d] * x;
          }
          dotsJs.push(a, b);
        }
        assert.deepEqual(bits(Array.from(k.f64.subarray(k.at.scores, k.at.scores + 2 * keys))), bits(dotsJs), `dots ${label}`);
        fillInputs(k, hd, keys, keys);
        k.pvExact(lo - 1, keys);
        const acc0 = new Float64Array(hd), acc1 = new Float64Array(hd);
        for (let j = lo; j <= hi; j++)
          for (let d = 0; d < hd; d++) {
            const v = view.values[view.valueOffset(j, 0) + d] * vs;
            acc0[d] += w0[j - lo] * v;
            acc1[d] += w1[j - lo] * v;
          }
        assert.deepEqual(bits(Array.from(k.f64.subarray(k.at.acc0, k.at.acc0 + hd))), bits(Array.from(acc0)), `pvExact lane 0 ${label}`);
        assert.deepEqual(bits(Array.from(k.f64.subarray(k.at.acc1, k.at.acc1 + hd))), bits(Array.from(acc1)), `pvExact lane 1 ${label}`);
      }
});

test('pvRounded ≡ the JS online-softmax accumulation (Float32Array acc, per-tile corrections), every first-tile length', () => {
  const k = kernels!;
  const rng = createRng(5);
  for (const hd of [3, 8, 64])
    for (const P of [4, 16])
      for (const keys of [1, 9, 37])
        for (let firstTile = 1; firstTile <= Math.min(P, keys); firstTile++)
          for (const passes of [1, WIDEN_FROM_PASSES]) {
            const view = randomView(keys, hd, hd + P + keys);
            k.loadKv(view, 0, 0, keys - 1, P, hd, 1, 1, passes);
            const { w0, w1 } = fillInputs(k, hd, keys, firstTile);
            const tiles = 1 + Math.ceil((keys - firstTile) / P);
            const corr = Array.from({ length: 2 * tiles }, (_, i) => (i < 2 ? 0 : Math.fround(rng.next())));
            corr.forEach((c, i) => (k.f64[k.at.corr + i] = c));
            k.pvRounded(0, keys, firstTile, P);
            const expect = [new Float32Array(hd), new Float32Array(hd)];
            let tile = 0;
            for (let j0 = 0, j1 = firstTile; j0 < keys; j0 = j1, j1 = Math.min(keys, j1 + P), tile++)
              for (const [lane, acc] of expect.entries()) {
                for (let d = 0; d < hd; d++) acc[d] *= corr[2 * tile + lane];
                for (let j = j0; j < j1; j++) for (let d = 0; d < hd; d++) acc[d] += (lane ? w1 : w0)[j] * view.values[view.valueOffset(j, 0) + d];
              }
            const label = `hd ${hd} P ${P} keys ${keys} first ${firstTile} passes ${passes}`;
            assert.deepEqual(bits(Array.from(k.f64.subarray(k.at.acc0, k.at.acc0 + hd))), bits(Array.from(expect[0])), `lane 0 ${label}`);
            assert.deepEqual(bits(Array.from(k.f64.subarray(k.at.acc1, k.at.acc1 + hd))), bits(Array.from(expect[1])), `lane 1 ${label}`);
          }
});

test('a range beyond MAX_KV_ELEMENTS is refused (callers keep the JS loops for it), and the kernels still work after', () => {
  const k = kernels!;
  const hd = 64;
  const huge: KvView = { values: new Float32Array(0), length: 0, keyOffset: () => 0, valueOffset: () => 0 };
  assert.throws(() => k.loadKv(huge, 0, 0, MAX_KV_ELEMENTS / hd, 16, hd, 1, 1, 1), RangeError);
  const view = randomView(5, hd, 1);
  k.loadKv(view, 0, 0, 4, 16, hd, 1, 1, 1);
  fillInputs(k, hd, 5, 1);
  k.dots(0, 5);
  assert.ok(Number.isFinite(k.f64[k.at.scores]));
});
