/**
 * What a wrong (row, head) pair computed instead: its output is re-derived with the reference under
 * wrong key ranges and wrong scales (research attention-numerics.md §6 suggests comparing with
 * "wrong-window" variants), and every hypothesis that reproduces the pair within tolerance is named.
 * This turns "row 4, head 1 is off by 0.9" into "row 4, head 1 attended from the first draft row's
 * window start rounded down to a 64-key tile".
 *
 * Real kernels tile keys (16–256 per tile) and skip whole tiles before a window start, so a range
 * defect often shows as a start rounded down to a tile of T keys: T is not assumed but tried over
 * TILE_SIZES, and the characterization keeps the T that explains the most pairs. Spec-decode kernels
 * compute one window start per draft block, so the first and the last row's start applied to every
 * row are hypotheses of their own. Scale bookkeeping shows as logits and output off by a product of
 * q/k/v scales (dropped, or applied twice). In a NaN-poisoned dump (vectors --nan-outside-window) a
 * non-finite output means the kernel loaded a slot no row may read.
 * Only the first MAX_HYPOTHESIS_PAIRS faulty pairs of a dump are examined (each costs a few row recomputes).
 */
import { referenceAttention } from '../engine/attention/reference-backend.js';
import type { KernelDump } from './dump-format.js';
import { NAN_POISON } from './dump-metadata.js';
import type { Tolerance } from './tolerance.js';
import { withinTolerance } from './tolerance.js';
import { expectedKernelScales, referenceInputs } from './reference-inputs.js';
import type { PairError } from './verify.js';

export const MAX_HYPOTHESIS_PAIRS = 512;

/** Key-tile sizes real kernels use (FlashInfer XQA 64 for SM90 FP8, vLLM Triton 16–128, FA 64–256). */
export const TILE_SIZES = [16, 32, 64, 128, 256];

export type HypothesisKind = 'range' | 'tile' | 'scale' | 'poison';

export interface Hypothesis {
  name: string;
  kind: HypothesisKind;
  /** Tiled hypotheses: the tile size T, so the characterization can say which T the data picked. */
  tile?: number;
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
const startOf = (c: RowContext, row: number) => Math.max(0, row - c.windowLeft);
const floorTo = (x: number, t: number) => Math.floor(x / t) * t;

const RANGE_HYPOTHESES: Hypothesis[] = [
  { kind: 'range', name: 'window start one page early', range: (c) => windowed(c, [Math.max(0, c.lo - c.P), c.p]) },
  { kind: 'range', name: 'window start one page late', range: (c) => windowed(c, [c.lo + c.P, c.p]) },
  { kind: 'range', name: 'keys shifted back one page (lo−P..p−P)', range: (c) => windowed(c, [c.lo - c.P, c.p - c.P]) },
  { kind: 'range', name: 'window start one key early', range: (c) => windowed(c, [Math.max(0, c.lo - 1), c.p]) },
  { kind: 'range', name: 'window start one key late', range: (c) => windowed(c, [c.lo + 1, c.p]) },
  { kind: 'range', name: "last row's window for every row", range: (c) => windowed(c, [startOf(c, c.lastRow), c.p]) },
  { kind: 'range', name: "first row's window for every row", range: (c) => windowed(c, [startOf(c, c.firstRow), c.p]) },
  { kind: 'range', name: 'no window', range: (c) => windowed(c, [0, c.p]) },
  { kind: 'range', name: 'no causal mask within the step', range: (c) => [c.lo, c.lastRow] },
];

const TILE_ROWS: { who: string; start: (c: RowContext) => number }[] = [
  { who: "the row's own", start: (c) => c.lo },
  { who: "the first draft row's", start: (c) => startOf(c, c.firstRow) },
  { who: "the last draft row's", start: (c) => startOf(c, c.lastRow) },
];

const TILE_HYPOTHESES: Hypothesis[] = TILE_ROWS.flatMap(({ who, start }) =>
  TILE_SIZES.map((t) => ({
    kind: 'tile' as const,
    tile: t,
    name: `${who} window start rounded down to a ${t}-key tile`,
    range: (c: RowContext) => windowed(c, [floorTo(start(c), t), c.p]),
  })),
);

type Factor = { name: string; of: (s: number) => number };
const FACTORS: Factor[] = [
  { name: '', of: () => 1 },
  { name: 'dropped', of: (s) => 1 / s },
  { name: 'applied twice', of: (s) => s },
];

/**
 * Dropped or doubled q/k/v scales: logits × f(q)·f(k), output × f(v). A BF16 query has no q scale to
 * drop, but a kernel may still apply the checkpoint's q_scale to it ("applied twice" reads as "applied").
 */
function scaleHypotheses(): Hypothesis[] {
  const out: Hypothesis[] = [];
  for (const fq of FACTORS)
    for (const fk of FACTORS)
      for (const fv of FACTORS) {
        const parts = (
          [
            ['q', fq],
            ['k', fk],
            ['v', fv],
          ] as const
        ).filter(([, f]) => f.name);
        if (!parts.length) continue;
        out.push({
          kind: 'scale',
          name: parts.map(([n, f]) => `${n} scale ${f.name}`).join(', '),
          scales: (d) => {
            const fp8Kv = d.meta.kvDtype === 'fp8_e4m3';
            if (!fp8Kv && (fk.name || fv.name)) return null; // an unquantized cache has no k/v scale
            if (d.meta.qDtype !== 'fp8_e4m3' && fq.name === 'dropped') return null;
            const logits = fq.of(d.scales.q) * fk.of(d.scales.k), output = fv.of(d.scales.v);
            return logits === 1 && output === 1 ? null : { logits, output };
          },
        });
      }
  return out;
}

export const HYPOTHESES: Hypothesis[] = [
  ...RANGE_HYPOTHESES,
  ...TILE_HYPOTHESES,
  ...scaleHypotheses(),
  {
    kind: 'scale',
    name: 'scales as passed (bmm1/bmm2 of the metadata)',
    scales: (d) => {
      const e = expectedKernelScales(d);
      const logits = d.meta.bmm1Scale / e.bmm1, output = d.meta.bmm2Scale / e.bmm2;
      return logits === 1 && output === 1 ? null : { logits, output };
    },
  },
];

/** Named for a pair whose output is non-finite in a dump that poisons every slot no row may read. */
export const POISON_READ = 'reads a masked slot (its NaN poisons the output)';

/** Fills `matches` of each examined pair (in place); returns how many were examined. `out` is the dump's output as float32. */
export function matchHypotheses(d: KernelDump, out: Float32Array, pairs: PairError[], tol: Tolerance): number {
  if (pairs.length === 0) return 0;
  const { q, layer, requests } = referenceInputs(d);
  const { numHeads: Hq, headDim: hd } = d.geometry;
  const qLen = d.meta.qLenPerReq, P = d.meta.pageSize;
  const poisoned = d.meta.extra.poison === NAN_POISON;
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
    if (poisoned) for (const pe of rowPairs) if (pe.nonFinite > 0) pe.matches.push(POISON_READ);
    const c: RowContext = { p, lo, P, windowLeft: d.meta.windowLeft, firstRow: req.seqLen - qLen, lastRow: req.seqLen - 1 };
    // hypotheses that land on the same (range, scales) share one recompute of the row
    const rowOut = new Map<string, Float32Array>();
    const rowBase = globalRow * Hq * hd;
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
      const key = `${lo2}/${hi2}/${logits}`;
      let row = rowOut.get(key);
      if (!row) {
        referenceAttention(q, scratch, { view: req.view, seqLen: hi2 + 1, qLen: 1, rowStart: globalRow }, { ...layer, smScale: layer.smScale * logits, windowLeft: hi2 - lo2 });
        row = scratch.slice(rowBase, rowBase + Hq * hd);
        rowOut.set(key, row);
      }
      for (const pe of rowPairs) {
        const o = pe.head * hd;
        let all = true;
        for (let i = o; i < o + hd && all; i++) all = withinTolerance(out[rowBase + i], row[i] * output, tol);
        if (all) pe.matches.push(hyp.name);
      }
    }
  }
  return examined.length;
}
