/**
 * verify: recompute one dump with the engine's reference attention (engine/attention/reference.ts,
 * float64 accumulation) on the same dequantized inputs and compare with the dump's output.
 *
 * The reference is what the kernel should compute on the stored inputs:
 *   ref = softmax(sm_scale · Q_real · K_realᵀ over each row's window) · V_real,
 *   Q_real = query (BF16) or code · q_scale (FP8), K_real = code · k_scale, V_real = code · v_scale (FP8 KV),
 * the exact masking rule of attention-numerics §2.3 (each spec-decode row has its own window). The
 * reference ignores the dump's bmm1/bmm2: they are audited separately (what the kernel was passed
 * versus what these dtypes and scales require), which is how a scale-bookkeeping defect shows.
 * The reference's float64 result is stored as float32 (relative 6e-8, far below any tolerance).
 */
import { keyRange } from '../engine/attention/backend.js';
import { toFloat32 } from '../tensors/tensor.js';
import type { KernelDump } from './dump-format.js';
import { expectedKernelScales, referenceOutput } from './reference-inputs.js';
import { resolveTolerance, secondaryTolerance, withinTolerance, type Tolerance, type ToleranceSpec } from './tolerance.js';
import { matchHypotheses } from './hypotheses.js';

export interface PairError {
  request: number;
  row: number;
  head: number;
  /** Absolute position of the row (seq_len − q_len + row) and its window start. */
  position: number;
  windowStart: number;
  maxAbs: number;
  mismatches: number;
  nonFinite: number;
  /** Largest |ref| of the pair: the scale the error is measured against. */
  refMaxAbs: number;
  cosine: number;
  /** Wrong key ranges that reproduce this pair's output within tolerance (hypotheses.ts). */
  matches: string[];
}

export interface RequestSummary {
  request: number;
  seqLen: number;
  mismatches: number;
  faultyPairs: number;
  maxAbs: number;
}

export interface ScaleAudit {
  bmm1Expected: number;
  bmm1Given: number;
  bmm2Expected: number;
  bmm2Given: number;
  /** given / expected: the factor the kernel's logits (bmm1) and output (bmm2) are off by. */
  logitsFactor: number;
  outputFactor: number;
  consistent: boolean;
}

export interface CaseResult {
  file: string;
  kernel: string;
  kernelVersion: string;
  qDtype: string;
  kvDtype: string;
  windowLeft: number;
  qLenPerReq: number;
  pageSize: number;
  numHeads: number;
  tolerance: Tolerance;
  /** Where auto widened the band for a kernel's FP8 arithmetic: what the dtype band alone flags. */
  dtypeBand?: { tolerance: Tolerance; mismatches: number; faultyPairs: number };
  elements: number;
  mismatches: number;
  nonFinite: number;
  maxAbsError: number;
  requests: RequestSummary[];
  faultyPairs: PairError[];
  /** How many faulty pairs were tested against the hypotheses (the first ones, up to a cap). */
  pairsExamined: number;
  scaleAudit: ScaleAudit;
  ok: boolean;
}

/** The metadata holds float32-rounded scales: equal within float32 precision counts as consistent. */
const SCALE_RTOL = 1e-6;

function auditScales(d: KernelDump): ScaleAudit {
  const e = expectedKernelScales(d);
  const logitsFactor = d.meta.bmm1Scale / e.bmm1, outputFactor = d.meta.bmm2Scale / e.bmm2;
  return {
    bmm1Expected: e.bmm1,
    bmm1Given: d.meta.bmm1Scale,
    bmm2Expected: e.bmm2,
    bmm2Given: d.meta.bmm2Scale,
    logitsFactor,
    outputFactor,
    consistent: Math.abs(logitsFactor - 1) <= SCALE_RTOL && Math.abs(outputFactor - 1) <= SCALE_RTOL,
  };
}

/** Verifies one dump that has an output. */
export function verifyDump(d: KernelDump, spec: ToleranceSpec, ref: Float32Array = referenceOutput(d)): CaseResult {
  if (!d.output) throw new Error('verifyDump needs a dump with an output (the caller checks)');
  const tol = resolveTolerance(spec, d.meta);
  const strict = secondaryTolerance(spec, d.meta);
  let strictMismatches = 0, strictPairs = 0;
  const out = toFloat32(d.output);
  const { numHeads: Hq, headDim: hd } = d.geometry;
  const qLen = d.meta.qLenPerReq;
  const pairs: PairError[] = [];
  const requests: RequestSummary[] = [];
  let mismatches = 0, nonFinite = 0, maxAbsError = 0;
  for (let b = 0; b < d.geometry.batch; b++) {
    const summary: RequestSummary = { request: b, seqLen: d.seqLens[b], mismatches: 0, faultyPairs: 0, maxAbs: 0 };
    for (let t = 0; t < qLen; t++) {
      const position = d.seqLens[b] - qLen + t;
      for (let h = 0; h < Hq; h++) {
        const o = ((b * qLen + t) * Hq + h) * hd;
        let pMax = 0, pMis = 0, pNan = 0, refMax = 0, dot = 0, na = 0, nb = 0, pStrict = 0;
        for (let i = o; i < o + hd; i++) {
          const x = out[i], e = ref[i];
          if (!Number.isFinite(x)) pNan++;
          const err = Number.isFinite(x) ? Math.abs(x - e) : Infinity;
          if (err > pMax) pMax = err;
          if (!withinTolerance(x, e, tol)) pMis++;
          if (strict && !withinTolerance(x, e, strict)) pStrict++;
          refMax = Math.max(refMax, Math.abs(e));
          dot += x * e;
          na += x * x;
          nb += e * e;
        }
        mismatches += pMis;
        nonFinite += pNan;
        strictMismatches += pStrict;
        if (pStrict) strictPairs++;
        maxAbsError = Math.max(maxAbsError, pMax);
        summary.maxAbs = Math.max(summary.maxAbs, pMax);
        if (pMis === 0) continue;
        summary.mismatches += pMis;
        summary.faultyPairs++;
        pairs.push({
          request: b,
          row: t,
          head: h,
          position,
          windowStart: keyRange(position, d.meta.windowLeft).lo,
          maxAbs: pMax,
          mismatches: pMis,
          nonFinite: pNan,
          refMaxAbs: refMax,
          cosine: na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : NaN,
          matches: [],
        });
      }
    }
    requests.push(summary);
  }
  const pairsExamined = matchHypotheses(d, out, pairs, tol);
  const scaleAudit = auditScales(d);
  return {
    file: d.label,
    kernel: d.meta.kernel ?? 'unknown',
    kernelVersion: d.meta.kernelVersion ?? 'unknown',
    qDtype: d.meta.qDtype,
    kvDtype: d.meta.kvDtype,
    windowLeft: d.meta.windowLeft,
    qLenPerReq: qLen,
    pageSize: d.meta.pageSize,
    numHeads: Hq,
    tolerance: tol,
    ...(strict ? { dtypeBand: { tolerance: strict, mismatches: strictMismatches, faultyPairs: strictPairs } } : {}),
    elements: out.length,
    mismatches,
    nonFinite,
    maxAbsError,
    requests,
    faultyPairs: pairs,
    pairsExamined,
    scaleAudit,
    ok: mismatches === 0,
  };
}
