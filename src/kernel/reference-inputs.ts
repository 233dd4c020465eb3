/**
 * The reference's view of a dump: real query values (decoded codes; an FP8 query's q_scale folded
 * into the softmax scale, which is exact in float64 where a float32 product would round), the layer
 * and one request per batch entry, plus the bmm1/bmm2 that the dump's dtypes and scales require.
 */
import { referenceAttention } from '../engine/attention/reference-backend.js';
import { toFloat32 } from '../tensors/tensor.js';
import type { KernelDump } from './dump-format.js';
import { attentionRequests, dumpLayer, kvViews } from './dump-view.js';

/** bmm1/bmm2 the dtypes and scales require (attention-numerics §5.1 table). */
export function expectedKernelScales(d: KernelDump): { bmm1: number; bmm2: number } {
  const fp8Kv = d.meta.kvDtype === 'fp8_e4m3';
  const q = d.meta.qDtype === 'fp8_e4m3' ? d.scales.q : 1;
  return { bmm1: d.meta.smScale * q * (fp8Kv ? d.scales.k : 1), bmm2: fp8Kv ? d.scales.v : 1 };
}

export function referenceInputs(d: KernelDump) {
  const q = toFloat32(d.query);
  const smScale = d.meta.qDtype === 'fp8_e4m3' ? d.meta.smScale * d.scales.q : d.meta.smScale;
  const layer = dumpLayer(d, smScale);
  const requests = attentionRequests(d, kvViews(d));
  return { q, layer, requests };
}

/** The reference output [tokens, Hq, hd] of a dump (engine/attention/reference.ts, float64 inside). */
export function referenceOutput(d: KernelDump): Float32Array {
  const { q, layer, requests } = referenceInputs(d);
  const out = new Float32Array(q.length);
  for (const req of requests) referenceAttention(q, out, req, layer);
  return out;
}
