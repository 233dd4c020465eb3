/**
 * What a wrong (row, head) pair computed instead: its output is re-derived with the reference under
 * a few wrong key ranges and wrong scales (research attention-numerics.md §6 suggests comparing with
 * "wrong-window" variants), and every hypothesis that reproduces the pair within tolerance is named.
 * This turns "row 4, head 1 is off by 0.9" into "row 4, head 1 attended one page too early".
 * Only the first MAX_HYPOTHESIS_PAIRS faulty pairs of a dump are examined (each costs a few row recomputes).
 */
import { referenceAttention } from '../engine/attention/reference-backend.js';
import type { KernelDump } from './dump-format.js';
import type { Tolerance } from './tolerance.js';
import { withinTolerance } from './tolerance.js';
import { expectedKernelScales, referenceInputs } from './reference-inputs.js';
import type { PairError } from './verify.js';

export const MAX_HYPOTHESIS_PAIRS = 512;

interface Hypothesis {
  name: string;
  /** The wrong key range of a row at position p (window start lo), or null when it does not apply. */
  range?: (c: RowContext) => [number, number] | null;
  /** Scale factors on logits and output (default 1). */
  scales?: (d: KernelDump) => { logits: number; output: number } | null;
}

interface RowContext {
  p: number;
  lo: number;
  P: number;
  windowLeft: number;
  firstRow: number;
  lastRow: number;
}

const windowed = (c: RowContext, r: [number, number]): [number, number] | null => (c.windowLeft < 0 ? null : r);

export const HYPOTHESES: Hypothesis[] = [
  { name: 'window start one page early', range: (c) => windowed(c, [Math.max(0, c.lo - c.P), c.p]) },
  { name: 'window start one page late', range: (c) => windowed(c, [c.lo + c.P, c.p]) },
  { name: 'keys shifted back one page (lo−P..p−P)', range: (c) => windowed(c, [c.lo - c.P, c.p - c.P]) },
  { name: 'window start one key early', range: (c) => windowed(c, [Math.max(0, c.lo - 1), c.p]) },
  { name: 'window start one key late', range: (c) => windowed(c, [c.lo + 1, c.p]) },
  { name: "last row's window for every row", range: (c) => windowed(c, [Math.max(0, c.lastRow - c.windowLeft), c.p]) },
  { name: "first row's window for every row", range: (c) => windowed(c, [Math.max(0, c.firstRow - c.windowLeft), c.p]) },
  { name: 'no window', range: (c) => windowed(c, [0, c.p]) },
  { name: 'no causal mask within the step', range: (c) => [c.lo, c.lastRow] },
  {
    name: 'scales as passed (bmm1/bmm2 of the metadata)',
    scales: (d) => {
      const e = expectedKernelScales(d);
      const logits = d.meta.bmm1Scale / e.bmm1, output = d.meta.bmm2Scale / e.bmm2;
      return logits === 1 && output === 1 ? null : { logits, output };
    },
  },
];

/** Fills `matches` of each examined pair (in place); returns how many were examined. `out` is the dump's output as float32. */
export function matchHypotheses(d: KernelDump, out: Float32Array, pairs: PairError[], tol: Tolerance): number {
  if (pairs.length === 0) return 0;
  const { q, layer, requests } = referenceInputs(d);
  const { numHeads: Hq, headDim: hd } = d.geometry;
  const qLen = d.meta.qLenPerReq, P = d.meta.pageSize;
  const scratch = new Float32Array(q.length);
  const examined = pairs.slice(0, MAX_HYPOTHESIS_PAIRS);
  // one row recompute serves every head of the row: group pairs by (request, row)
  const byRow = new Map<number, PairError[]>();
  for (const pe of examined) {
    const key = pe.request * qLen + pe.row;
    byRow.set(key, [...(byRow.get(key) ?? []), pe]);
  }
  for (const [globalRow, rowPairs] of byRow) {
    const { request: b, position: p, windowStart: lo } = rowPairs[0];
    const req = requests[b];
    const c: RowContext = { p, lo, P, windowLeft: d.meta.windowLeft, firstRow: req.seqLen - qLen, lastRow: req.seqLen - 1 };
    for (const hyp of HYPOTHESES) {
      let lo2 = lo, hi2 = p, logits = 1, output = 1;
      if (hyp.range) {
        const r = hyp.range(c);
        if (!r || r[0] < 0 || r[0] > r[1] || r[1] >= req.seqLen || (r[0] === lo && r[1] === p)) continue;
        [lo2, hi2] = r;
      }
      if (hyp.scales) {
        const s = hyp.scales(d);
        if (!s) continue;
        ({ logits, output } = s);
      }
      // a one-row request whose exact window is [lo2, hi2]
      referenceAttention(q, scratch, { view: req.view, seqLen: hi2 + 1, qLen: 1, rowStart: globalRow }, { ...layer, smScale: layer.smScale * logits, windowLeft: hi2 - lo2 });
      for (const pe of rowPairs) {
        const o = (globalRow * Hq + pe.head) * hd;
        let all = true;
        for (let i = o; i < o + hd && all; i++) all = withinTolerance(out[i], scratch[i] * output, tol);
        if (all) pe.matches.push(hyp.name);
      }
    }
  }
  return examined.length;
}
