/**
 * `faultline kernel verify --json` → KernelData: the controls table as characterize.ts computed
 * it, and two maps rebuilt from the per-dump results over the same scope characterize uses (the
 * dumps with errors when there are any, else all): requests by (seq_len − window, seq_len mod page)
 * and (row, head) pairs. JSON has no NaN/Infinity: verify writes those as strings, kept as strings.
 */
import { z } from 'zod';
import type { KernelData } from '../data.js';

const num = z.union([z.number(), z.string()]);

const dump = z.object({
  file: z.string(),
  kernel: z.string(),
  qDtype: z.string(),
  kvDtype: z.string(),
  windowLeft: z.number().int(),
  qLenPerReq: z.number().int().positive(),
  pageSize: z.number().int().positive(),
  numHeads: z.number().int().positive(),
  mismatches: z.number(),
  maxAbsError: num,
  requests: z.array(z.object({ request: z.number(), seqLen: z.number().int(), faultyPairs: z.number() })),
  faultyPairs: z.array(z.object({ request: z.number(), row: z.number().int(), head: z.number().int() })),
  scaleAudit: z.object({ consistent: z.boolean(), logitsFactor: num, outputFactor: num }),
  ok: z.boolean(),
});

export const kernelSchema = z.object({
  tool: z.literal('faultline kernel verify'),
  tolerance: z.string(),
  ok: z.boolean(),
  dumps: z.array(dump),
  characterization: z.object({
    controls: z.array(z.object({ name: z.string(), condition: z.string(), requests: z.number(), failing: z.number(), verdict: z.string() })),
    alignmentScope: z.string(),
    hypotheses: z.array(z.object({ name: z.string(), pairs: z.number() })),
    pageSizes: z.array(z.number()),
  }),
});

export type KernelJson = z.output<typeof kernelSchema>;

export const KERNEL_HINT = 'regenerate it with `faultline kernel verify DUMPS --json > verify.json`';

export function looksLikeKernel(v: Record<string, unknown>): boolean {
  return v.tool === 'faultline kernel verify' || ('dumps' in v && 'characterization' in v);
}

export function kernelData(source: string, j: KernelJson): KernelData {
  const scope = j.dumps.some((d) => !d.ok) ? j.dumps.filter((d) => !d.ok) : j.dumps;
  const alignment = new Map<string, KernelData['alignment'][number]>();
  const rowHead = new Map<string, KernelData['rowHead'][number]>();
  for (const d of scope) {
    const faulty = new Set(d.faultyPairs.map((p) => `${p.request}/${p.row}/${p.head}`));
    for (const r of d.requests) {
      if (d.windowLeft >= 0) {
        const sinceWindow = r.seqLen - (d.windowLeft + 1), seqModPage = r.seqLen % d.pageSize;
        const key = `${sinceWindow}/${seqModPage}`;
        const cell = alignment.get(key) ?? { sinceWindow, seqModPage, requests: 0, failing: 0 };
        cell.requests++;
        if (r.faultyPairs > 0) cell.failing++;
        alignment.set(key, cell);
      }
      for (let row = 0; row < d.qLenPerReq; row++)
        for (let head = 0; head < d.numHeads; head++) {
          const key = `${row}/${head}`;
          const cell = rowHead.get(key) ?? { row, head, pairs: 0, failing: 0 };
          cell.pairs++;
          if (faulty.has(`${r.request}/${row}/${head}`)) cell.failing++;
          rowHead.set(key, cell);
        }
    }
  }
  return {
    source,
    ok: j.ok,
    tolerance: j.tolerance,
    dumps: j.dumps.map((d) => ({
      file: d.file,
      kernel: d.kernel,
      qDtype: d.qDtype,
      kvDtype: d.kvDtype,
      windowLeft: d.windowLeft,
      qLenPerReq: d.qLenPerReq,
      pageSize: d.pageSize,
      numHeads: d.numHeads,
      requests: d.requests.length,
      mismatches: d.mismatches,
      faultyPairs: d.faultyPairs.length,
      maxAbsError: d.maxAbsError,
      scalesConsistent: d.scaleAudit.consistent,
      logitsFactor: d.scaleAudit.logitsFactor,
      outputFactor: d.scaleAudit.outputFactor,
      ok: d.ok,
    })),
    controls: j.characterization.controls,
    hypotheses: j.characterization.hypotheses,
    scope: j.characterization.alignmentScope,
    alignment: [...alignment.values()].sort((a, b) => a.sinceWindow - b.sinceWindow || a.seqModPage - b.seqModPage),
    rowHead: [...rowHead.values()].sort((a, b) => a.row - b.row || a.head - b.head),
    pageSizes: j.characterization.pageSizes,
  };
}
