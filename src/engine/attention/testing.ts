/**
 * Test inputs for attention backends (tests only): a paged cache holding random K/V for a few
 * requests, random query rows, and a runner that calls a backend on them.
 */
import { createRng } from '../../core/rng.js';
import { roundToBf16 } from '../../numerics/bf16.js';
import type { KvCache, KvDtype, KvView } from '../kv-cache/cache.js';
import { ContiguousKvCache } from '../kv-cache/contiguous.js';
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
  /** Default paged (blocks of the requests interleaved). */
  cacheKind?: 'paged' | 'contiguous';
}

export interface BuiltCase {
  layer: AttentionLayer;
  q: Float32Array; // [rows, Hq, hd], BF16 values
  requests: AttentionRequest[];
  rows: number;
}

/** Fills a paged (blocks of the requests interleaved) or contiguous cache and draws BF16 queries. */
export function buildCase(c: AttentionCase): BuiltCase {
  const rng = createRng(c.seed);
  const width = c.numKvHeads * c.headDim;
  const spec = { numLayers: 1, numKvHeads: c.numKvHeads, headDim: c.headDim, dtype: c.kvDtype, pageSize: c.pageSize, scales: [{ k: c.scales.k, v: c.scales.v }] };
  const cache: KvCache = c.cacheKind === 'contiguous' ? new ContiguousKvCache(spec) : new PagedKvCache(spec, 4096);
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

/**
 * The same K/V seen through an NHD page layout [blocks, 2, P, Hkv, hd] with the blocks in reverse
 * order: offsets within a page step by Hkv·hd, not hd (the layout of a kernel dump, kernel/dump-view.ts).
 */
export function nhdRequest(req: AttentionRequest, layer: AttentionLayer): AttentionRequest {
  const { numKvHeads: H, headDim: hd, pageSize: P } = layer;
  const blocks = Math.ceil(req.seqLen / P);
  const table = Array.from({ length: blocks }, (_, b) => blocks - 1 - b);
  const values = new Float32Array(blocks * 2 * P * H * hd);
  const at = (pos: number, plane: number, h: number) => (((table[Math.floor(pos / P)] * 2 + plane) * P + (pos % P)) * H + h) * hd;
  for (let pos = 0; pos < req.seqLen; pos++)
    for (let h = 0; h < H; h++)
      for (let d = 0; d < hd; d++) {
        values[at(pos, 0, h) + d] = req.view.values[req.view.keyOffset(pos, h) + d];
        values[at(pos, 1, h) + d] = req.view.values[req.view.valueOffset(pos, h) + d];
      }
  const view: KvView = { values, length: req.seqLen, keyOffset: (p, h) => at(p, 0, h), valueOffset: (p, h) => at(p, 1, h) };
  return { ...req, view };
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
