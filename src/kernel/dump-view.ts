/**
 * A dump seen through the engine's attention interfaces: the KV cache as a `KvView` per request
 * (stored values decoded without their scales, the way an FP8 kernel reads them; page lookup
 * through the request's block table, HND or NHD), and the `AttentionLayer` the dump describes.
 * This lets the engine's reference attention and its FlashInfer emulation run on a dump unchanged.
 */
import type { AttentionLayer, AttentionRequest } from '../engine/attention/backend.js';
import type { KvView } from '../engine/kv-cache/cache.js';
import { toFloat32 } from '../tensors/tensor.js';
import type { KernelDump } from './dump-format.js';

export function kvViews(d: KernelDump): KvView[] {
  const values = toFloat32(d.kvCache);
  const { numKvHeads: H, headDim: hd } = d.geometry;
  const P = d.meta.pageSize;
  const hnd = d.meta.kvLayout === 'HND';
  // element offset of (block, plane, head, slot) for each layout
  const base = hnd
    ? (block: number, plane: number, h: number, off: number) => (((block * 2 + plane) * H + h) * P + off) * hd
    : (block: number, plane: number, h: number, off: number) => (((block * 2 + plane) * P + off) * H + h) * hd;
  return d.blockTables.map((table, b) => ({
    values,
    length: d.seqLens[b],
    keyOffset: (pos: number, h: number) => base(table[(pos / P) | 0], 0, h, pos % P),
    valueOffset: (pos: number, h: number) => base(table[(pos / P) | 0], 1, h, pos % P),
  }));
}

/** One request per batch entry, rows laid out request after request (q_len_per_req each). */
export function attentionRequests(d: KernelDump, views: KvView[] = kvViews(d)): AttentionRequest[] {
  const q = d.meta.qLenPerReq;
  return d.seqLens.map((seqLen, b) => ({ view: views[b], seqLen, qLen: q, rowStart: b * q }));
}

/**
 * The layer the dump describes. `smScale` is the model's; scales are the dump's (1.0 when absent).
 * kvDtype follows the dump so that the engine applies k/v scales only to an FP8 cache, as vLLM does.
 */
export function dumpLayer(d: KernelDump, smScale = d.meta.smScale): AttentionLayer {
  return {
    index: 0,
    numHeads: d.geometry.numHeads,
    numKvHeads: d.geometry.numKvHeads,
    headDim: d.geometry.headDim,
    windowLeft: d.meta.windowLeft,
    smScale,
    scales: { ...d.scales },
    kvDtype: d.meta.kvDtype === 'fp8_e4m3' ? 'fp8_e4m3' : 'bf16',
    pageSize: d.meta.pageSize,
  };
}
