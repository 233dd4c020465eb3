/**
 * Small hand-built dumps for tests (tests only): one preset's case with chosen q_len, window and
 * seq_lens, and an F32 output slot, so tests can plant exact values.
 */
import { makeTensor } from '../tensors/tensor.js';
import type { KernelDump } from './dump-format.js';
import type { QDtype } from './dump-metadata.js';
import { PRESETS, type PresetSpec } from './presets.js';
import { buildVectorCase } from './vectors.js';

export type DumpParts = Omit<KernelDump, 'label' | 'geometry'>;

export function smallPreset(over: Partial<PresetSpec> = {}): PresetSpec {
  return { ...PRESETS['swa-specdec-sweep'], seqLens: [70, 79, 80, 95], ...over };
}

export function smallCase(o: { qLen?: number; windowLeft?: number; qDtype?: QDtype; preset?: Partial<PresetSpec>; unitScales?: boolean; seed?: number } = {}): DumpParts {
  const p = smallPreset(o.preset);
  const qDtype = o.qDtype ?? 'bf16';
  return buildVectorCase(
    p,
    { file: 'small.safetensors', kvDtype: p.kvDtypes[0], qDtype, windowLeft: o.windowLeft ?? p.slidingWindow - 1, qLenPerReq: o.qLen ?? 8 },
    0,
    { seed: o.seed ?? 3, unitScales: o.unitScales ?? false },
  );
}

/** The dump with an F32 output holding `values`. */
export function withOutput(d: DumpParts, values: Float32Array): DumpParts {
  return { ...d, meta: { ...d.meta, outDtype: 'fp32', kernel: 'test', kernelVersion: '0' }, output: makeTensor('F32', d.query.shape, values) };
}
