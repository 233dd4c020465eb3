/**
 * The engine as a kernel under test: run the engine's emulated FlashInfer decode path
 * (engine/attention/flashinfer.ts — routing, query quantization, scale bookkeeping, and optionally
 * the fault model) on a dump's inputs and write what it computes into the dump's `output`.
 * With the fault model `trtllm-gen-swa-specdec` this produces dumps with known wrong (row, head)
 * pairs, so that verify's localization can be checked on a CPU. The fault model is a MODEL of the
 * unpublished defect of flashinfer#3864, and the dump's `kernel` metadata says so.
 */
import { UserError } from '../core/errors.js';
import { VERSION } from '../core/version.js';
import type { AttentionCallRecord } from '../engine/attention/backend.js';
import type { BookkeepingName } from '../engine/attention/bookkeeping.js';
import type { FaultModel } from '../engine/attention/fault-models.js';
import { createFlashinferBackend, quantizeQuery } from '../engine/attention/flashinfer.js';
import { fromFloat32, toFloat32 } from '../tensors/tensor.js';
import type { KernelDump } from './dump-format.js';
import { attentionRequests, dumpLayer } from './dump-view.js';

export interface EngineRunOptions {
  policy: BookkeepingName;
  faultModel: FaultModel | null;
}

export interface EngineRunResult {
  dump: KernelDump;
  record: AttentionCallRecord;
}

export function engineKernelName(o: EngineRunOptions, kernel: string): string {
  const model = o.faultModel ? `fault model ${o.faultModel.name} (a MODEL of flashinfer#3864, not the real kernel)` : 'no fault model';
  return `faultline-engine flashinfer ${kernel}, scale policy ${o.policy}, ${model}`;
}

/** A copy of the dump whose output (BF16) and bmm1/bmm2 are what the engine's decode path computed. */
export function runEngineOnDump(d: KernelDump, o: EngineRunOptions): EngineRunResult {
  const fp8Q = d.meta.qDtype === 'fp8_e4m3';
  if (fp8Q && d.meta.kvDtype !== 'fp8_e4m3')
    throw new UserError(`${d.label}: an FP8 query with a BF16 cache has no FlashInfer decode path to emulate`, {
      code: 'E_KERNEL_DUMP',
      hint: 'vLLM quantizes the query only for an FP8 KV cache',
    });
  const layer = dumpLayer(d);
  const codes = toFloat32(d.query);
  // the engine quantizes a model-precision query itself: hand it code · q_scale, which quantizes back
  // to exactly the stored code (a float32 product is within an ulp; FP8's grid is 2^20 ulps coarser)
  const q = fp8Q ? codes.map((c) => Math.fround(c * Math.fround(d.scales.q))) : codes;
  if (fp8Q)
    for (let i = 0; i < q.length; i++)
      if (quantizeQuery(q[i], d.scales.q) !== codes[i]) throw new Error(`FP8 query element ${i} does not re-quantize to its stored code`);
  const backend = createFlashinferBackend({ bookkeeping: o.policy, faultModel: o.faultModel, disableQQuantization: !fp8Q, useTrtllmAttention: null });
  let record: AttentionCallRecord | undefined;
  backend.onCall = (r) => (record = r);
  const out = new Float32Array(q.length);
  backend.run(q, out, attentionRequests(d), layer, { kind: 'decode', qLenPerReq: d.meta.qLenPerReq });
  if (!record) throw new Error('the engine backend reported no call');
  const meta = {
    ...d.meta,
    bmm1Scale: record.bmm1,
    bmm2Scale: record.bmm2,
    outDtype: 'bf16' as const,
    kernel: engineKernelName(o, record.kernel),
    kernelVersion: `faultline ${VERSION}`,
    extra: { ...d.meta.extra, fault_model: o.faultModel?.name ?? 'none', scale_policy: o.policy },
  };
  return { dump: { ...d, meta, output: fromFloat32(out, 'BF16', d.query.shape) }, record };
}
