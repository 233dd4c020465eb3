/**
 * `faultline probe --format json` (the summary) or the full `--out` report → ProbeData: corrupt
 * tokens binned by sequence position (bins start at the window boundary, so no bar straddles it)
 * and by position mod page, and the worst requests' side-by-side excerpts.
 */
import { z } from 'zod';
import type { PositionBin, ProbeData, ProbeExampleData, TextSegment } from '../data.js';

const corruptToken = z.object({
  index: z.number(),
  position: z.number(),
  sinceWindow: z.number().optional(),
  pageOffset: z.number().optional(),
  class: z.string(),
});

/** A request of the summary (promptLength, verdict) or of the full report (promptTokens, judgement). */
const request = z.union([
  z.object({
    id: z.string(),
    promptLength: z.number(),
    maxTokens: z.number(),
    verdict: z.string(),
    corruptTokens: z.array(corruptToken),
  }),
  z.object({
    id: z.string(),
    promptTokens: z.array(z.number()),
    maxTokens: z.number(),
    judgement: z.object({ verdict: z.string(), corruptTokens: z.array(corruptToken), judgedTokens: z.number() }),
  }),
]);

export const probeSchema = z.object({
  verdict: z.enum(['CLEAN', 'CORRUPT', 'INCONCLUSIVE']),
  reason: z.string(),
  target: z.object({ url: z.string(), model: z.string().optional() }),
  reference: z.object({ url: z.string().optional(), golden: z.string().optional(), model: z.string().optional() }),
  settings: z.object({ suite: z.string(), window: z.number().optional(), pageSize: z.number().int().positive() }),
  counts: z.object({
    planned: z.number(),
    judged: z.number(),
    identical: z.number(),
    benignDrift: z.number(),
    corrupt: z.number(),
    failed: z.number(),
    notRun: z.number(),
  }),
  tokens: z.object({ judged: z.number(), corrupt: z.number(), rate: z.number(), upper: z.number() }),
  errors: z.array(z.object({ message: z.string(), count: z.number() })),
  notes: z.array(z.string()),
  examples: z.array(
    z.object({ id: z.string(), from: z.number(), reference: z.string(), candidate: z.string(), corrupt: z.array(corruptToken) }),
  ),
  requests: z.array(request),
});

export type ProbeJson = z.output<typeof probeSchema>;

export const PROBE_HINT = 'regenerate it with `faultline probe … --format json > probe.json` (or use the --out file)';

export function looksLikeProbe(v: Record<string, unknown>): boolean {
  return 'verdict' in v && 'counts' in v && 'settings' in v;
}

interface Req {
  id: string;
  promptLength: number;
  generated: number;
  judged: boolean;
  corrupt: z.output<typeof corruptToken>[];
}

function normalize(r: ProbeJson['requests'][number]): Req & { fromJudged: boolean } {
  if ('judgement' in r)
    return {
      id: r.id,
      promptLength: r.promptTokens.length,
      generated: r.judgement.judgedTokens,
      judged: r.judgement.verdict !== 'failed',
      corrupt: r.judgement.corruptTokens,
      fromJudged: true,
    };
  return { id: r.id, promptLength: r.promptLength, generated: r.maxTokens, judged: r.verdict !== 'failed', corrupt: r.corruptTokens, fromJudged: false };
}

const MAX_BINS = 48;
/** Pages are powers of two, so power-of-two bins keep page structure visible. */
function binWidth(span: number): number {
  let w = 1;
  while (span / w > MAX_BINS) w *= 2;
  return w;
}

export function positionBins(requests: readonly Req[], window: number | undefined): PositionBin[] {
  const judged = requests.filter((r) => r.judged && r.generated > 0);
  if (judged.length === 0) return [];
  const lo = Math.min(...judged.map((r) => r.promptLength));
  const hi = Math.max(...judged.map((r) => r.promptLength + r.generated));
  const w = binWidth(hi - lo);
  // bins are aligned so one starts at window + 1, the first position past the window
  const origin = window === undefined ? 0 : window + 1;
  const first = origin + Math.floor((lo - origin) / w) * w;
  const bins: PositionBin[] = [];
  for (let from = first; from < hi; from += w) bins.push({ from, to: from + w, generated: 0, corrupt: 0 });
  for (const r of judged) {
    const a = r.promptLength, b = r.promptLength + r.generated;
    for (const bin of bins) bin.generated += Math.max(0, Math.min(b, bin.to) - Math.max(a, bin.from));
    for (const t of r.corrupt) {
      const bin = bins[Math.floor((t.position - first) / w)];
      if (bin) bin.corrupt++;
    }
  }
  return bins.filter((b) => b.generated > 0);
}

const PAGE_OFFSETS_SHOWN = 256;

function pageOffsets(tokens: readonly { position: number }[], pageSize: number): { offset: number; corrupt: number }[] {
  const counts = new Map<number, number>();
  for (const t of tokens) counts.set(t.position % pageSize, (counts.get(t.position % pageSize) ?? 0) + 1);
  // every offset of a page, zeros included, so "only some alignments" is visible; huge pages show only offsets that occur
  if (pageSize <= PAGE_OFFSETS_SHOWN) return Array.from({ length: pageSize }, (_, offset) => ({ offset, corrupt: counts.get(offset) ?? 0 }));
  return [...counts].sort((a, b) => a[0] - b[0]).map(([offset, corrupt]) => ({ offset, corrupt }));
}

/** The probe marks each corrupt token of an excerpt ⟦like this⟧. */
export function markedSegments(text: string): TextSegment[] {
  const out: TextSegment[] = [];
  let last = 0;
  for (const m of text.matchAll(/⟦([\s\S]*?)⟧/g)) {
    if (m.index > last) out.push({ text: text.slice(last, m.index), corrupt: false });
    out.push({ text: m[1], corrupt: true });
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push({ text: text.slice(last), corrupt: false });
  return out;
}

const EXAMPLES_SHOWN = 6;

export function probeData(source: string, j: ProbeJson): ProbeData {
  const requests = j.requests.map(normalize);
  const window = j.settings.window;
  const corruptTokens = requests.flatMap((r) =>
    r.corrupt.map((t) => ({ request: r.id, index: t.index, position: t.position, sinceWindow: t.sinceWindow, pageOffset: t.pageOffset, class: t.class })),
  );
  const perRequest = new Map(requests.map((r) => [r.id, r.corrupt.length]));
  const examples: ProbeExampleData[] = j.examples
    .map((e) => ({
      id: e.id,
      corruptTokens: perRequest.get(e.id) ?? e.corrupt.length,
      firstPosition: e.corrupt[0]?.position ?? e.from,
      sinceWindow: e.corrupt[0]?.sinceWindow,
      reference: e.reference,
      candidate: markedSegments(e.candidate),
    }))
    .sort((a, b) => b.corruptTokens - a.corruptTokens)
    .slice(0, EXAMPLES_SHOWN);
  return {
    source,
    verdict: j.verdict,
    reason: j.reason,
    target: j.target,
    reference: j.reference,
    suite: j.settings.suite,
    window,
    pageSize: j.settings.pageSize,
    counts: j.counts,
    tokens: j.tokens,
    corruptTokens,
    byPosition: positionBins(requests, window),
    generatedFrom: requests.some((r) => r.fromJudged) ? 'judged tokens' : 'max_tokens',
    byPageOffset: pageOffsets(corruptTokens, j.settings.pageSize),
    examples,
    notes: j.notes,
    errors: j.errors,
  };
}
