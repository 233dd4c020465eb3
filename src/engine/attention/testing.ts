/**
 * Test inputs for attention backends (tests only): a paged cache holding random K/V for a few
 * requests, random query rows, and a runner that calls a backend on them.
 */
import { createRng } from '../../core/rng.js';
import { roundToBf16 } from '../../numerics/bf16.js';
import type { KvDtype } from '../kv-cache/cache.js';
import { PagedKvCache } from '../kv-cache/paged.js';
import type { AttentionScales } from '../weights.js';
import type { AttentionBackend, AttentionLayer, AttentionPhase, AttentionRequest } from './backend.js';

export interface AttentionCase {
  seed: number;
  numHeads: number;
  numKvHeads: number;
  headDim: number;
  windowLeft: number;
  smScale: number;
  scales: AttentionScales;
  kvDtype: KvDtype;
  pageSize: number;
  /** Per request: KV length incl. new rows, and new rows. */
  requests: { seqLen: number; qLen: number }[];
  /** Std of Q and K entries (before the cache's dtype conversion) and of V entries. */
  qkStd?: number;
  vStd?: number;
}

export interface BuiltCase {
  layer: AttentionLayer;
  q: Float32Array; // [rows, Hq, hd], BF16 values
  requests: AttentionRequest[];
  rows: number;
}

/** Fills a paged cache (blocks of the requests interleaved) and draws BF16 queries. */
export function buildCase(c: AttentionCase): BuiltCase {
  const rng = createRng(c.seed);
  const width = c.numKvHeads * c.headDim;
  const cache = new PagedKvCache(
    { numLayers: 1, numKvHeads: c.numKvHeads, headDim: c.headDim, dtype: c.kvDtype, pageSize: c.pageSize, scales: [{ k: c.scales.k, v: c.scales.v }] },
    4096,
  );
  const qkStd = c.qkStd ?? 1, vStd = c.vStd ?? 1;
  // the real K/V magnitude is std; the scale only changes how it is stored
  const maxLen = Math.max(...c.requests.map((r) => r.seqLen));
  for (let pos = 0; pos < maxLen; pos += c.pageSize)
    c.requests.forEach((r, i) => {
      const end = Math.min(r.seqLen, pos + c.pageSize);
      if (end <= pos) return;
      cache.extend(i, end);
      for (let p = pos; p < end; p++) {
        const k = Float32Array.from({ length: width }, () => roundToBf16(rng.normal() * qkStd));
        const v = Float32Array.from({ length: width }, () => roundToBf16(rng.normal() * vStd));
        cache.write(0, i, p, k, 0, v, 0);
      }
    });
  let rows = 0;
  const requests: AttentionRequest[] = c.requests.map((r, i) => {
    const req = { view: cache.view(0, i), seqLen: r.seqLen, qLen: r.qLen, rowStart: rows };
    rows += r.qLen;
    return req;
  });
  const q = Float32Array.from({ length: rows * c.numHeads * c.headDim }, () => roundToBf16(rng.normal() * qkStd));
  const layer: AttentionLayer = {
    index: 0,
    numHeads: c.numHeads,
    numKvHeads: c.numKvHeads,
    headDim: c.headDim,
    windowLeft: c.windowLeft,
    smScale: c.smScale,
    scales: c.scales,
    kvDtype: c.kvDtype,
    pageSize: c.pageSize,
  };
  return { layer, q, requests, rows };
}

export function runBackend(b: AttentionBackend, built: BuiltCase, phase: AttentionPhase, q: Float32Array = built.q): Float32Array {
  const out = new Float32Array(built.rows * built.layer.numHeads * built.layer.headDim);
  b.run(q, out, built.requests, built.layer, phase);
  return out;
}

export function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}
