/**
 * Input vectors: one dump per (KV dtype, Q dtype, window on/off, q_len_per_req), each a batch of
 * requests over the preset's seq_lens, plus manifest.json. Inputs are produced the way vLLM
 * produces them (research attention-numerics.md §1.3): K/V are BF16 values written to the FP8
 * cache as satfinite(float32(x / scale)); an FP8 query is satfinite(clamp(float32(x · (1/q_scale)), ±448)).
 * All requests of a dump share one prefix of KV pages (as prefix caching shares blocks) stored in a
 * shuffled physical order, so the block-table indirection is exercised and the files stay small.
 * `output` is left out: a kernel (GPU capture, `kernel run-engine`) writes it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../core/errors.js';
import { createRng, type Rng } from '../core/rng.js';
import { VERSION } from '../core/version.js';
import { fixedScales } from '../engine/attention/bookkeeping.js';
import { f32ToBf16Bits, roundToBf16 } from '../numerics/bf16.js';
import { encodeFp8, FP8_E4M3_MAX, quantizeToFp8Codes } from '../numerics/fp8.js';

/** E4M3FN has one NaN per sign: S.1111.111. */
const FP8_E4M3_NAN_CODE = 0x7f;
import { makeTensor, type Tensor } from '../tensors/tensor.js';
import { writeKernelDump, type KernelDump } from './dump-format.js';
import { NAN_POISON, type KvDtypeName, type QDtype } from './dump-metadata.js';
import type { PresetSpec } from './presets.js';

export interface VectorCase {
  file: string;
  kvDtype: KvDtypeName;
  qDtype: QDtype;
  windowLeft: number;
  qLenPerReq: number;
}

export interface VectorOptions {
  seed: number;
  /** Scales 1.0 (hides the scale-bookkeeping defect; a control only). */
  unitScales: boolean;
  /**
   * NaN in every KV slot no row may read: keys older than a request's first window, slots past its
   * seq_len, unused pages. Each request then gets pages of its own (a shared prefix would make one
   * request's stale keys another's live ones). A kernel that loads a masked slot and multiplies its
   * zero weight by it returns NaN even where the finite values would have cancelled.
   */
  nanOutsideWindow?: boolean;
  /** Which of those slots get NaN (default all): the keys before the window, or the slots past seq_len and unused pages. */
  nanSlots?: NanSlots;
}

export const NAN_SLOTS = ['all', 'before-window', 'past-end'] as const;
export type NanSlots = (typeof NAN_SLOTS)[number];

/** The cases of a preset, in a stable order (FP8 Q is only paired with an FP8 cache, as in vLLM). */
export function presetCases(p: PresetSpec): VectorCase[] {
  const cases: VectorCase[] = [];
  for (const kvDtype of p.kvDtypes)
    for (const qDtype of p.qDtypes) {
      if (qDtype === 'fp8_e4m3' && kvDtype !== 'fp8_e4m3') continue;
      for (const windowed of p.windowed)
        for (const qLen of p.qLens) {
          const w = windowed ? `w${p.slidingWindow}` : 'wnone';
          const file = `kv${short(kvDtype)}_q${short(qDtype)}_${w}_qlen${String(qLen).padStart(2, '0')}.safetensors`;
          cases.push({ file, kvDtype, qDtype, windowLeft: windowed ? p.slidingWindow - 1 : -1, qLenPerReq: qLen });
        }
    }
  return cases;
}

const short = (d: string) => (d === 'fp8_e4m3' ? 'fp8' : d);

/** The dump of one case (no output). */
export function buildVectorCase(p: PresetSpec, c: VectorCase, index: number, o: VectorOptions): Omit<KernelDump, 'label' | 'geometry'> {
  const rng = createRng((o.seed * 7919 + index * 104729) >>> 0);
  const { numHeads: Hq, numKvHeads: Hkv, headDim: hd, pageSize: P } = p;
  for (const s of p.seqLens)
    if (s < c.qLenPerReq) throw new UserError(`preset ${p.name}: seq_len ${s} < q_len_per_req ${c.qLenPerReq}`, { code: 'E_USAGE' });
  const maxSeq = Math.max(...p.seqLens);
  const pages = Math.ceil(maxSeq / P);
  const poison = o.nanOutsideWindow === true;
  const slots: NanSlots = o.nanSlots ?? 'all';
  const nanBefore = poison && slots !== 'past-end', nanPast = poison && slots !== 'before-window';
  // pages per owner: one shared prefix, or (poisoned) one run of pages per request
  const ownerPages = poison ? p.seqLens.map((s) => Math.ceil(s / P)) : [pages];
  const numBlocks = ownerPages.reduce((a, b) => a + b, 0) + p.junkBlocks;
  const order = shuffled(numBlocks, rng);
  const ownerTables: number[][] = [];
  let next = 0;
  for (const n of ownerPages) {
    ownerTables.push(order.slice(next, next + n));
    next += n;
  }
  const junk = order.slice(next);

  // real K/V of the shared prefix, [pos][Hkv][hd], BF16 like a model's K/V projections
  const K = bf16Normals(rng, maxSeq * Hkv * hd, p.qkStd);
  const V = bf16Normals(rng, maxSeq * Hkv * hd, p.vStd);
  const fp8Kv = c.kvDtype === 'fp8_e4m3';
  const kScale = fp8Kv && !o.unitScales ? calibrated(K) : 1;
  const vScale = fp8Kv && !o.unitScales ? calibrated(V) : 1;

  const blockElems = 2 * Hkv * P * hd;
  const kvValues = new Float32Array(numBlocks * blockElems); // stored values before encoding
  const stored = fp8Kv ? quantizeToFp8Codes : null;
  const kCodes = stored ? stored(K, kScale, 'e4m3fn', 'satfinite') : null;
  const vCodes = stored ? stored(V, vScale, 'e4m3fn', 'satfinite') : null;
  const kvCodes = fp8Kv ? new Uint8Array(numBlocks * blockElems) : null;
  const slot = (block: number, plane: number, h: number, off: number) => (((block * 2 + plane) * Hkv + h) * P + off) * hd;
  ownerTables.forEach((table, owner) => {
    const length = poison ? p.seqLens[owner] : maxSeq;
    // keys no row of this request reads: before its first row's window, and past its seq_len
    const firstRead = nanBefore && c.windowLeft >= 0 ? Math.max(0, length - c.qLenPerReq - c.windowLeft) : 0;
    for (let pos = 0; pos < table.length * P; pos++)
      for (let h = 0; h < Hkv; h++) {
        const block = table[Math.floor(pos / P)];
        if (pos >= maxSeq && !nanPast) continue; // the last page keeps zeros past the longest request
        const live = pos >= firstRead && (pos < length || !nanPast);
        for (let d = 0; d < hd; d++) {
          const src = (pos * Hkv + h) * hd + d;
          const kAt = slot(block, 0, h, pos % P) + d, vAt = slot(block, 1, h, pos % P) + d;
          if (!live) {
            if (kvCodes) kvCodes[kAt] = kvCodes[vAt] = FP8_E4M3_NAN_CODE;
            else kvValues[kAt] = kvValues[vAt] = NaN;
          } else if (kvCodes) {
            kvCodes[kAt] = kCodes![src];
            kvCodes[vAt] = vCodes![src];
          } else {
            kvValues[kAt] = K[src];
            kvValues[vAt] = V[src];
          }
        }
      }
  });
  // junk pages: NaN when poisoned, else large finite values (FP8 ±448, BF16 ±1e4) that wreck any output that reads them
  for (const block of junk)
    for (let i = block * blockElems; i < (block + 1) * blockElems; i++) {
      const neg = rng.next() < 0.5;
      if (kvCodes) kvCodes[i] = nanPast ? FP8_E4M3_NAN_CODE : neg ? 0xfe : 0x7e;
      else kvValues[i] = nanPast ? NaN : neg ? -1e4 : 1e4;
    }
  // a request's table: its own pages (or the shared prefix), padded with an unused page
  const blockTables = p.seqLens.map((_, b) => {
    const own = ownerTables[poison ? b : 0];
    return [...own, ...Array<number>(pages - own.length).fill(junk[0] ?? own[0])];
  });
  const kvShape = [numBlocks, 2, Hkv, P, hd];
  const kvCache: Tensor = kvCodes ? makeTensor('F8_E4M3', kvShape, kvCodes) : makeTensor('BF16', kvShape, bf16Bits(kvValues));

  const batch = p.seqLens.length;
  const Qreal = bf16Normals(rng, batch * c.qLenPerReq * Hq * hd, p.qkStd);
  const qShape = [batch * c.qLenPerReq, Hq, hd];
  const fp8Q = c.qDtype === 'fp8_e4m3';
  const qScale = o.unitScales ? 1 : calibrated(Qreal);
  const query: Tensor = fp8Q ? makeTensor('F8_E4M3', qShape, quantizeQueryCodes(Qreal, qScale)) : makeTensor('BF16', qShape, bf16Bits(Qreal));

  const scales = fixedScales({ kernel: 'trtllm-gen-decode', qDtype: fp8Q ? 'fp8' : 'bf16', kvQuantized: fp8Kv, smScale: p.smScale, q: qScale, k: kScale, v: vScale });
  return {
    meta: {
      qLenPerReq: c.qLenPerReq,
      windowLeft: c.windowLeft,
      smScale: p.smScale,
      bmm1Scale: scales.bmm1,
      bmm2Scale: scales.bmm2,
      qDtype: c.qDtype,
      kvDtype: c.kvDtype,
      outDtype: 'bf16',
      pageSize: P,
      kvLayout: 'HND',
      extra: {
        case_id: c.file.replace(/\.safetensors$/, ''),
        preset: p.name,
        seed: String(o.seed),
        generator: `faultline ${VERSION} kernel vectors`,
        ...(poison ? { poison: NAN_POISON, poison_slots: slots } : {}),
      },
    },
    query,
    kvCache,
    blockTables,
    seqLens: [...p.seqLens],
    scales: { q: qScale, k: kScale, v: vScale },
    // an unquantized cache carries no k/v scales (vLLM applies none); q_scale is the checkpoint's,
    // kept even for a BF16 query so that a kernel that wrongly applies it can be caught
    scalesPresent: { q: true, k: fp8Kv, v: fp8Kv },
  };
}

/** vLLM's static per-tensor query quantization (engine/attention/flashinfer.ts quantizeQuery), as codes. */
export function quantizeQueryCodes(x: Float32Array, qScale: number): Uint8Array {
  const inv = Math.fround(1 / Math.fround(qScale));
  const out = new Uint8Array(x.length);
  for (let i = 0; i < x.length; i++)
    out[i] = encodeFp8(Math.min(FP8_E4M3_MAX, Math.max(-FP8_E4M3_MAX, Math.fround(x[i] * inv))), 'e4m3fn', 'satfinite');
  return out;
}

/** amax / 448 as float32 (a per-tensor calibration, as in checkpoints' k_scale / v_scale). */
function calibrated(x: Float32Array): number {
  let amax = 0;
  for (const v of x) amax = Math.max(amax, Math.abs(v));
  return Math.fround(amax / FP8_E4M3_MAX);
}

function bf16Normals(rng: Rng, n: number, std: number): Float32Array {
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) a[i] = roundToBf16(rng.normal() * std);
  return a;
}

function bf16Bits(values: Float32Array): Uint16Array {
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = f32ToBf16Bits(values[i]);
  return out;
}

function shuffled(n: number, rng: Rng): number[] {
  const a = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

export interface Manifest {
  format: 'faultline-kernel-vectors/1';
  preset: string;
  description: string;
  seed: number;
  unitScales: boolean;
  nanOutsideWindow: boolean;
  nanSlots?: NanSlots;
  geometry: { numHeads: number; numKvHeads: number; headDim: number; pageSize: number; slidingWindow: number; smScale: number };
  seqLens: number[];
  cases: (VectorCase & { batch: number; scales: { q: number; k: number; v: number }; bmm1Scale: number; bmm2Scale: number })[];
}

/** Writes every case of the preset and manifest.json into dir (created if needed). */
export function writeVectors(dir: string, p: PresetSpec, o: VectorOptions): Manifest {
  mkdirSync(dir, { recursive: true });
  const manifest: Manifest = {
    format: 'faultline-kernel-vectors/1',
    preset: p.name,
    description: p.description,
    seed: o.seed,
    unitScales: o.unitScales,
    nanOutsideWindow: o.nanOutsideWindow === true,
    ...(o.nanOutsideWindow ? { nanSlots: o.nanSlots ?? 'all' } : {}),
    geometry: { numHeads: p.numHeads, numKvHeads: p.numKvHeads, headDim: p.headDim, pageSize: p.pageSize, slidingWindow: p.slidingWindow, smScale: p.smScale },
    seqLens: [...p.seqLens],
    cases: [],
  };
  presetCases(p).forEach((c, i) => {
    const d = buildVectorCase(p, c, i, o);
    writeKernelDump(join(dir, c.file), d);
    manifest.cases.push({ ...c, batch: d.seqLens.length, scales: d.scales, bmm1Scale: d.meta.bmm1Scale, bmm2Scale: d.meta.bmm2Scale });
  });
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  return manifest;
}
