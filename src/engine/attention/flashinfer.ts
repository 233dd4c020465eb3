/**
 * The `flashinfer` backend: vLLM's FlashInfer attention path on an SM100 GPU (B200), emulated.
 * Three decisions are data, each from the research notes (vllm-flashinfer.md §1):
 *   1. routing — which kernel a slice runs on (`routeFlashinfer`);
 *   2. query dtype — FP8 (Q / q_scale, clamped, satfinite) when the KV cache is FP8 and Q
 *      quantization is not disabled; the model dtype otherwise;
 *   3. scale bookkeeping — `fixed` or `vllm-affected` (bookkeeping.ts);
 * plus an optional fault model (fault-models.ts) that, when selected, changes the key range of
 * specific (row, head) pairs. The numeric kernel itself is online-softmax.ts.
 */
import { roundToBf16 } from '../../numerics/bf16.js';
import { encodeFp8, FP8_E4M3_DECODE_LUT, FP8_E4M3_MAX } from '../../numerics/fp8.js';
import { keyRange, rowPosition, type AttentionBackend, type AttentionCallRecord, type AttentionLayer, type AttentionPhase, type AttentionRequest } from './backend.js';
import { SCALE_POLICIES, type BookkeepingName, type FlashinferKernel } from './bookkeeping.js';
import { attentionKernels, MAX_KV_ELEMENTS } from '../wasm/attention-kernels.js';
import type { FaultModel } from './fault-models.js';
import { newScratch, onlineSoftmaxRowHead, type OnlineSoftmaxArgs } from './online-softmax.js';
import { onlineSoftmaxRequestSimd } from './online-softmax-simd.js';
import type { AttentionKernelChoice } from './reference-backend.js';

export interface FlashinferOptions {
  bookkeeping: BookkeepingName;
  /** null = the kernel computes what it should. */
  faultModel: FaultModel | null;
  /** attention_config.disable_flashinfer_q_quantization */
  disableQQuantization: boolean;
  /** attention_config.use_trtllm_attention: null = auto. */
  useTrtllmAttention: boolean | null;
  /** 'wasm-simd' (default): online-softmax-simd.ts where it applies, bit-identical to 'js' (online-softmax.ts alone). */
  kernels?: AttentionKernelChoice;
}

export interface Route {
  kernel: FlashinferKernel;
  qDtype: 'bf16' | 'fp8';
}

/**
 * SM100 routing as in vLLM's FlashInfer backend (vllm-flashinfer.md §1.4–1.6):
 * - Q is FP8 iff the KV cache is FP8, trtllm is usable and `disable_flashinfer_q_quantization` is off;
 * - decode (incl. spec verify) → trtllm-gen unless use_trtllm_attention = false;
 * - prefill → trtllm-gen context if Q is FP8, if forced (use_trtllm_attention = true), or in auto
 *   mode with an unquantized cache; FlashInfer's native prefill wrapper otherwise.
 */
export function routeFlashinfer(phase: AttentionPhase, kvQuantized: boolean, o: FlashinferOptions): Route {
  const trtllmUsable = o.useTrtllmAttention !== false;
  const qDtype = kvQuantized && trtllmUsable && !o.disableQQuantization ? 'fp8' : 'bf16';
  if (phase.kind === 'decode') return { kernel: trtllmUsable ? 'trtllm-gen-decode' : 'native-decode', qDtype };
  const trtllmPrefill = qDtype === 'fp8' || o.useTrtllmAttention === true || (o.useTrtllmAttention === null && !kvQuantized);
  return { kernel: trtllmPrefill ? 'trtllm-gen-context' : 'native-prefill', qDtype };
}

/** vLLM's static per-tensor query quantization: float32(x · (1 / q_scale)), clamp ±448, satfinite E4M3. */
export function quantizeQuery(x: number, qScale: number): number {
  const inv = Math.fround(1 / Math.fround(qScale));
  const y = Math.min(FP8_E4M3_MAX, Math.max(-FP8_E4M3_MAX, Math.fround(x * inv)));
  return FP8_E4M3_DECODE_LUT[encodeFp8(y, 'e4m3fn', 'satfinite')];
}

export function createFlashinferBackend(options: FlashinferOptions): AttentionBackend {
  const policy = SCALE_POLICIES[options.bookkeeping];
  let qBuffer = new Float32Array(0); // reused: holds this call's quantized query rows
  let los = new Int32Array(0), his = new Int32Array(0); // reused: key ranges of a request's (row, head) pairs
  const backend: AttentionBackend = {
    name: 'flashinfer',
    supportsSpecAsDecode: options.useTrtllmAttention !== false,
    run(q, out, requests, layer, phase) {
      const kvQuantized = layer.kvDtype === 'fp8_e4m3';
      const route = routeFlashinfer(phase, kvQuantized, options);
      const scales = policy({ ...route, kvQuantized, smScale: layer.smScale, ...layer.scales });
      if (route.qDtype === 'fp8' && qBuffer.length < q.length) qBuffer = new Float32Array(q.length);
      const qk = route.qDtype === 'fp8' ? quantizeRows(q, qBuffer, requests, layer) : q;
      const ks = Math.fround(layer.scales.k), vs = Math.fround(layer.scales.v);
      // the mock cache of vLLM's prefill fallback: fp8 → float32 · scale → bf16
      const kvTransform = scales.dequantizeKvFirst
        ? (x: number, which: 'k' | 'v') => roundToBf16(x * (which === 'k' ? ks : vs))
        : null;
      const record: AttentionCallRecord = { layer: layer.index, phase, kernel: route.kernel, qDtype: route.qDtype, ...scales, faultyPairs: [] };
      const scratch = newScratch(layer.headDim, layer.pageSize);
      // the SIMD path needs the stored values as they are (no dequantizing transform) and whole GQA groups
      const kernels = options.kernels === 'js' || kvTransform || layer.numHeads % layer.numKvHeads !== 0 ? null : attentionKernels();
      const Hq = layer.numHeads;
      requests.forEach((req, r) => {
        const args: OnlineSoftmaxArgs = {
          q: qk,
          out,
          view: req.view,
          rowStart: req.rowStart,
          numHeads: layer.numHeads,
          numKvHeads: layer.numKvHeads,
          headDim: layer.headDim,
          pageSize: layer.pageSize,
          bmm1: scales.bmm1,
          bmm2: scales.bmm2,
          kvTransform,
        };
        const faulty = faultyPairsOf(options.faultModel, route, kvQuantized, layer, phase, req);
        // each (row, head)'s key range: the row's window, or the fault model's range
        if (los.length < req.qLen * Hq) {
          los = new Int32Array(req.qLen * Hq);
          his = new Int32Array(req.qLen * Hq);
        }
        for (let t = 0; t < req.qLen; t++) {
          const { lo, hi } = keyRange(rowPosition(req, t), layer.windowLeft);
          for (let h = 0; h < Hq; h++) {
            const f = faulty.get(t * Hq + h);
            if (f) record.faultyPairs.push({ request: r, row: t, head: h, lo: f.lo, hi: f.hi });
            los[t * Hq + h] = f ? f.lo : lo;
            his[t * Hq + h] = f ? f.hi : hi;
          }
        }
        // every range lies in [0, seqLen) (the fault model's too): the kernel memory holds it when this fits
        if (kernels && req.seqLen * layer.headDim <= MAX_KV_ELEMENTS) onlineSoftmaxRequestSimd(kernels, args, req.qLen, los, his);
        else for (let t = 0; t < req.qLen; t++) for (let h = 0; h < Hq; h++) onlineSoftmaxRowHead(args, t, h, los[t * Hq + h], his[t * Hq + h], scratch);
      });
      backend.onCall?.(record);
    },
  };
  return backend;
}

/** The fault model's pairs for one request, keyed row·Hq + head. */
function faultyPairsOf(
  model: FaultModel | null,
  route: Route,
  kvQuantized: boolean,
  layer: AttentionLayer,
  phase: AttentionPhase,
  req: AttentionRequest,
): Map<number, { lo: number; hi: number }> {
  const pairs = new Map<number, { lo: number; hi: number }>();
  if (!model || phase.kind !== 'decode') return pairs;
  for (const p of model.faultyPairs({
    kernel: route.kernel,
    qDtype: route.qDtype,
    kvQuantized,
    windowLeft: layer.windowLeft,
    qLenPerReq: phase.qLenPerReq,
    seqLen: req.seqLen,
    pageSize: layer.pageSize,
    numHeads: layer.numHeads,
    numKvHeads: layer.numKvHeads,
  }))
    pairs.set(p.row * layer.numHeads + p.head, { lo: p.lo, hi: p.hi });
  return pairs;
}

/** This call's rows of q, quantized to FP8 values (decoded, without the scale), into qq (other rows untouched). */
function quantizeRows(q: Float32Array, qq: Float32Array, requests: AttentionRequest[], layer: AttentionLayer): Float32Array {
  const width = layer.numHeads * layer.headDim;
  for (const req of requests)
    for (let i = req.rowStart * width; i < (req.rowStart + req.qLen) * width; i++) qq[i] = quantizeQuery(q[i], layer.scales.q);
  return qq;
}
