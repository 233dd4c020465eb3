/**
 * One conformance suite for every KvCache implementation (contiguous; paged at 16/32/64):
 * what is written reads back converted exactly as cache.ts defines, whatever the block layout,
 * across interleaved sequences, truncation and block reuse.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRng } from '../../core/rng.js';
import { roundToBf16 } from '../../numerics/bf16.js';
import { decodeFp8, encodeFp8 } from '../../numerics/fp8.js';
import { KvCacheFullError, type KvCache, type KvCacheSpec, type KvDtype } from './cache.js';
import { ContiguousKvCache } from './contiguous.js';
import { PagedKvCache } from './paged.js';

const H = 2, HD = 8, LAYERS = 2;

function spec(dtype: KvDtype, pageSize: number): KvCacheSpec {
  return { numLayers: LAYERS, numKvHeads: H, headDim: HD, dtype, pageSize, scales: [{ k: 1, v: 1 }, { k: 0.25, v: 3 }] };
}

const makers: [string, (s: KvCacheSpec) => KvCache][] = [
  ['contiguous', (s) => new ContiguousKvCache(s)],
  ['paged', (s) => new PagedKvCache(s, 64)],
];

/** The value a cache must hold for x (no scale applied on read). */
function expected(dtype: KvDtype, x: number, scale: number): number {
  if (dtype === 'fp8_e4m3') return decodeFp8(encodeFp8(Math.fround(x) / Math.fround(scale), 'e4m3fn', 'satfinite'), 'e4m3fn');
  return dtype === 'bf16' ? roundToBf16(x) : Math.fround(x);
}

/** Random K/V of one position; large values included so that FP8 saturation is exercised. */
function kvAt(rng: ReturnType<typeof createRng>): { k: Float32Array; v: Float32Array } {
  const gen = () => Float32Array.from({ length: H * HD }, () => (rng.next() < 0.05 ? 600 : 4) * rng.normal());
  return { k: gen(), v: gen() };
}

for (const [name, make] of makers)
  for (const pageSize of [16, 32, 64])
    for (const dtype of ['fp32', 'bf16', 'fp8_e4m3'] as const)
      describe(`KvCache conformance: ${name}, page ${pageSize}, ${dtype}`, () => {
        test('interleaved sequences read back exactly what was written (converted), after truncate and reuse', () => {
          const rng = createRng(pageSize * 31 + dtype.length);
          const s = spec(dtype, pageSize);
          const cache = make(s);
          const truth = new Map<number, { k: Float32Array; v: Float32Array }[][]>(); // seq → pos → layer
          const append = (seq: number, n: number) => {
            const start = cache.length(seq);
            cache.extend(seq, start + n);
            const rows = truth.get(seq) ?? [];
            for (let p = start; p < start + n; p++) {
              rows[p] = [];
              for (let l = 0; l < LAYERS; l++) {
                const { k, v } = kvAt(rng);
                rows[p][l] = { k, v };
                cache.write(l, seq, p, k, 0, v, 0);
              }
            }
            truth.set(seq, rows);
          };
          // grow three sequences in small interleaved steps so their blocks interleave
          for (let step = 0; step < 6; step++) for (const seq of [1, 2, 3]) append(seq, 7 + step + seq);
          cache.truncate(2, 20); // rejected drafts
          truth.get(2)!.length = 20;
          cache.free(3);
          truth.delete(3);
          append(2, 45); // reuses freed blocks, overwrites stale data
          append(4, 70);
          for (const [seq, rows] of truth) {
            assert.equal(cache.length(seq), rows.length);
            for (let l = 0; l < LAYERS; l++) {
              const view = cache.view(l, seq);
              for (let p = 0; p < rows.length; p++)
                for (let h = 0; h < H; h++)
                  for (let d = 0; d < HD; d++) {
                    const { k, v } = rows[p][l];
                    assert.equal(view.values[view.keyOffset(p, h) + d], expected(dtype, k[h * HD + d], s.scales[l].k));
                    assert.equal(view.values[view.valueOffset(p, h) + d], expected(dtype, v[h * HD + d], s.scales[l].v));
                  }
            }
          }
        });
      });

describe('FP8 KV write is satfinite(x / scale), read without the scale', () => {
  test('values past ±448·scale saturate instead of becoming NaN', () => {
    const cache = new ContiguousKvCache(spec('fp8_e4m3', 16));
    cache.extend(0, 1);
    const k = new Float32Array(H * HD).fill(0.25 * 1000); // layer 1: k_scale 0.25 → 1000 → 448
    const v = new Float32Array(H * HD).fill(-3 * 0.5); // v_scale 3 → −0.5
    cache.write(1, 0, 0, k, 0, v, 0);
    const view = cache.view(1, 0);
    assert.equal(view.values[view.keyOffset(0, 0)], 448);
    assert.equal(view.values[view.valueOffset(0, 1)], -0.5);
  });
});

describe('paged cache: block table and slot mapping', () => {
  test('slot = table[pos / P]·P + pos % P, HND offsets, blocks freed on truncate', () => {
    const cache = new PagedKvCache(spec('bf16', 16), 8);
    cache.extend(1, 5);
    cache.extend(2, 20);
    cache.extend(1, 40);
    assert.deepEqual(cache.blockTable(1), [0, 3, 4]);
    assert.deepEqual(cache.blockTable(2), [1, 2]);
    assert.equal(cache.slot(1, 17), 3 * 16 + 1);
    const view = cache.view(0, 1);
    // [blocks, 2, H, P, hd]: K of pos 17, head 1 → block 3, K plane, head 1, offset 1
    assert.equal(view.keyOffset(17, 1), ((3 * 2 + 0) * H + 1) * 16 * HD + 1 * HD);
    assert.equal(view.valueOffset(17, 1), ((3 * 2 + 1) * H + 1) * 16 * HD + 1 * HD);
    assert.equal(cache.numFree, 3);
    cache.truncate(1, 16);
    assert.deepEqual(cache.blockTable(1), [0]);
    assert.equal(cache.numFree, 5);
    assert.equal(cache.blocksNeeded(1, 49), 3);
  });

  test('running out of blocks is a KvCacheFullError that leaves the sequence unchanged', () => {
    const cache = new PagedKvCache(spec('bf16', 16), 2);
    cache.extend(1, 30);
    assert.throws(() => cache.extend(1, 33), KvCacheFullError);
    assert.equal(cache.length(1), 30);
    assert.deepEqual(cache.blockTable(1), [0, 1]);
  });

  test('only page sizes 16, 32, 64', () => {
    assert.throws(() => new PagedKvCache(spec('bf16', 8), 4), /page size 8/);
  });
});

describe('KvView contract: offsets within a page are affine in the position (stride hd in these HND caches)', () => {
  for (const [name, make] of makers)
    test(name, () => {
      const cache = make(spec('bf16', 16));
      cache.extend(1, 5);
      cache.extend(2, 40);
      cache.extend(1, 70);
      const view = cache.view(0, 1);
      for (let p = 0; p + 1 < 70; p++)
        if ((p + 1) % 16 !== 0)
          for (let h = 0; h < H; h++) {
            assert.equal(view.keyOffset(p + 1, h), view.keyOffset(p, h) + HD);
            assert.equal(view.valueOffset(p + 1, h), view.valueOffset(p, h) + HD);
          }
    });
});
