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
import { makeTensor, type Tensor } from '../tensors/tensor.js';
import { writeKernelDump, type KernelDump } from './dump-format.js';
import type { KvDtypeName, QDtype } from './dump-metadata.js';
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
}

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
  const numBlocks = pages + p.junkBlocks;
  const order = shuffled(numBlocks, rng);
  const table = order.slice(0, pages);

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
  for (let pos = 0; pos < maxSeq; pos++)
    for (let h = 0; h < Hkv; h++)
      for (let d = 0; d < hd; d++) {
        const src = (pos * Hkv + h) * hd + d;
        const block = table[Math.floor(pos / P)];
        const kAt = (((block * 2 + 0) * Hkv + h) * P + (pos % P)) * hd + d;
        const vAt = (((block * 2 + 1) * Hkv + h) * P + (pos % P)) * hd + d;
        if (kvCodes) {
          kvCodes[kAt] = kCodes![src];
          kvCodes[vAt] = vCodes![src];
        } else {
          kvValues[kAt] = K[src];
          kvValues[vAt] = V[src];
        }
      }
  // junk pages: large finite values (FP8 ±448, BF16 ±1e4) that wreck any output that reads them
  for (const block of order.slice(pages))
    for (let i = block * blockElems; i < (block + 1) * blockElems; i++) {
      const neg = rng.next() < 0.5;
      if (kvCodes) kvCodes[i] = neg ? 0xfe : 0x7e;
      else kvValues[i] = neg ? -1e4 : 1e4;
    }
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
      },
    },
    query,
    kvCache,
    blockTables: p.seqLens.map(() => [...table]),
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
