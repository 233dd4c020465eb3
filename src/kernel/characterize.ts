/**
 * Characterization across verified dumps: under which conditions is the kernel wrong?
 *  - controls: for the reported trigger of the trtllm-gen defect (BF16 Q, FP8 KV, window on,
 *    q_len_per_req > 4, seq_len > window; attention-numerics.md §6 D1) and each control that flips one
 *    condition (FP8 Q, no window, q_len ≤ 4, seq_len ≤ window, BF16 KV): requests seen, requests wrong;
 *  - alignment: wrong requests by seq_len − window and by seq_len mod page; wrong rows by their
 *    window start mod page; wrong (row, head) pairs by row and by head;
 *  - which wrong-range hypotheses (hypotheses.ts) explain the wrong pairs.
 */
import type { CaseResult } from './verify.js';

export interface Bucket {
  key: number;
  total: number;
  failing: number;
}

export interface ControlRow {
  name: string;
  condition: string;
  requests: number;
  failing: number;
  verdict: 'errors' | 'clean' | 'not covered';
}

export interface Characterization {
  dumps: number;
  failingDumps: number;
  faultyPairs: number;
  /** The canonical trigger first, then the controls. */
  controls: ControlRow[];
  /** Alignment tables cover the dumps with errors when there are any, else all dumps. */
  alignmentScope: 'dumps with errors' | 'all dumps';
  /** Over requests of windowed dumps (seq_len − (window_left + 1)). */
  bySeqMinusWindow: Bucket[];
  bySeqModPage: Bucket[];
  /** Over rows of windowed dumps whose window start is > 0: (p − window_left) mod page. */
  byWindowStartModPage: Bucket[];
  /** Over (row, head) pairs: failing pairs by row index / head. */
  byRow: Bucket[];
  byHead: Bucket[];
  /** Each hypothesis that explains some examined pair, with the share of examined pairs it explains. */
  hypotheses: { name: string; pairs: number; share: number }[];
  /** The hypothesis that explains the most examined pairs, and those that explain as many (ties). */
  mechanism?: { name: string; pairs: number; share: number; ties: string[] };
  /** Examined pairs no hypothesis reproduces. */
  unexplained: number;
  /** Faulty pairs tested against the hypotheses. */
  pairsExamined: number;
  /** Page sizes seen (alignment tables mix them if there are several). */
  pageSizes: number[];
}

interface Req {
  c: CaseResult;
  seqLen: number;
  failing: boolean;
}

type Pred = (r: Req) => boolean;
const bf16Q: Pred = (r) => r.c.qDtype === 'bf16';
const fp8Kv: Pred = (r) => r.c.kvDtype === 'fp8_e4m3';
const windowed: Pred = (r) => r.c.windowLeft >= 0;
const deep: Pred = (r) => r.c.qLenPerReq > 4;
const pastWindow: Pred = (r) => r.c.windowLeft >= 0 && r.seqLen > r.c.windowLeft + 1;
const all = (...ps: Pred[]): Pred => (r) => ps.every((p) => p(r));
const not = (p: Pred): Pred => (r) => !p(r);

const CONTROLS: { name: string; condition: string; pred: Pred }[] = [
  { name: 'reported trigger', condition: 'BF16 Q, FP8 KV, window, q_len > 4, seq_len > window', pred: all(bf16Q, fp8Kv, windowed, deep, pastWindow) },
  { name: 'FP8 query', condition: 'FP8 Q (else as the trigger)', pred: all(not(bf16Q), fp8Kv, windowed, deep, pastWindow) },
  { name: 'no window', condition: 'window_left = −1, BF16 Q, FP8 KV, q_len > 4', pred: all(bf16Q, fp8Kv, not(windowed), deep) },
  { name: 'q_len ≤ 4', condition: 'q_len_per_req 1/2/4 (else as the trigger)', pred: all(bf16Q, fp8Kv, windowed, not(deep), pastWindow) },
  { name: 'seq_len ≤ window', condition: 'seq_len ≤ window (else as the trigger)', pred: all(bf16Q, fp8Kv, windowed, deep, not(pastWindow)) },
  { name: 'BF16 KV', condition: 'BF16 KV cache (else as the trigger)', pred: all(bf16Q, not(fp8Kv), windowed, deep, pastWindow) },
];

function bump(m: Map<number, Bucket>, key: number, failing: boolean): void {
  const b = m.get(key) ?? { key, total: 0, failing: 0 };
  b.total++;
  if (failing) b.failing++;
  m.set(key, b);
}

const sorted = (m: Map<number, Bucket>) => [...m.values()].sort((a, b) => a.key - b.key);

export function characterize(cases: CaseResult[]): Characterization {
  const reqs: Req[] = cases.flatMap((c) => c.requests.map((r) => ({ c, seqLen: r.seqLen, failing: r.faultyPairs > 0 })));
  const controls: ControlRow[] = CONTROLS.map(({ name, condition, pred }) => {
    const sel = reqs.filter(pred);
    const failing = sel.filter((r) => r.failing).length;
    return { name, condition, requests: sel.length, failing, verdict: sel.length === 0 ? 'not covered' : failing ? 'errors' : 'clean' };
  });

  const seqMinusWindow = new Map<number, Bucket>(), seqMod = new Map<number, Bucket>(), loMod = new Map<number, Bucket>();
  const byRow = new Map<number, Bucket>(), byHead = new Map<number, Bucket>();
  const hyp = new Map<string, number>();
  let unexplained = 0;
  // alignment tables over the dumps that have errors (controls would only dilute them), else over all
  const scope = cases.some((c) => !c.ok) ? cases.filter((c) => !c.ok) : cases;
  for (const c of scope) {
    const P = c.pageSize, W = c.windowLeft + 1;
    const faulty = new Set(c.faultyPairs.map((p) => `${p.request}/${p.row}/${p.head}`));
    const faultyRows = new Set(c.faultyPairs.map((p) => `${p.request}/${p.row}`));
    c.faultyPairs.slice(0, c.pairsExamined).forEach((p) => {
      if (!p.matches.length) unexplained++;
      for (const m of p.matches) hyp.set(m, (hyp.get(m) ?? 0) + 1);
    });
    for (const r of c.requests) {
      const failing = r.faultyPairs > 0;
      if (c.windowLeft >= 0) {
        bump(seqMinusWindow, r.seqLen - W, failing);
        bump(seqMod, r.seqLen % P, failing);
      }
      for (let t = 0; t < c.qLenPerReq; t++) {
        const lo = r.seqLen - c.qLenPerReq + t - c.windowLeft;
        if (c.windowLeft >= 0 && lo > 0) bump(loMod, lo % P, faultyRows.has(`${r.request}/${t}`));
        for (let h = 0; h < c.numHeads; h++) {
          const bad = faulty.has(`${r.request}/${t}/${h}`);
          bump(byRow, t, bad);
          bump(byHead, h, bad);
        }
      }
    }
  }
  const pairsExamined = scope.reduce((n, c) => n + c.pairsExamined, 0);
  const hypotheses = [...hyp]
    .map(([name, pairs]) => ({ name, pairs, share: pairsExamined ? pairs / pairsExamined : 0 }))
    .sort((a, b) => b.pairs - a.pairs || a.name.localeCompare(b.name));
  const best = hypotheses[0];
  return {
    dumps: cases.length,
    failingDumps: cases.filter((c) => !c.ok).length,
    faultyPairs: cases.reduce((n, c) => n + c.faultyPairs.length, 0),
    controls,
    alignmentScope: scope === cases ? 'all dumps' : 'dumps with errors',
    bySeqMinusWindow: sorted(seqMinusWindow),
    bySeqModPage: sorted(seqMod),
    byWindowStartModPage: sorted(loMod),
    byRow: sorted(byRow),
    byHead: sorted(byHead),
    pairsExamined,
    hypotheses,
    ...(best ? { mechanism: { ...best, ties: hypotheses.filter((h) => h !== best && h.pairs === best.pairs).map((h) => h.name) } } : {}),
    unexplained,
    pageSizes: [...new Set(cases.map((c) => c.pageSize))].sort((a, b) => a - b),
  };
}
