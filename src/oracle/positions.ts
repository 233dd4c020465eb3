/**
 * Where a token sits relative to the two things the canonical defect depends on: the sliding
 * window (errors appear only once the sequence is longer than the window) and the KV page size
 * (errors appear only at some alignments). See types.ts for the position convention.
 */

export interface PositionFacts {
  /** Sequence position of the token (= seq_len of the forward pass that produced it). */
  position: number;
  /** position − window: > 0 once the sequence the token was produced from exceeds the window. */
  sinceWindow?: number;
  /** position mod page size: the token's slot inside its KV page. */
  pageOffset?: number;
}

export interface PositionFrame {
  window?: number;
  pageSize?: number;
}

export function describePosition(position: number, frame: PositionFrame): PositionFacts {
  const facts: PositionFacts = { position };
  if (frame.window !== undefined) facts.sinceWindow = position - frame.window;
  if (frame.pageSize !== undefined && frame.pageSize > 0) facts.pageOffset = position % frame.pageSize;
  return facts;
}

/** Sequence position of generated token `index` after a prompt of `promptLength` tokens. */
export function generatedPosition(promptLength: number, index: number): number {
  return promptLength + index;
}

/** True when the token was produced from a sequence longer than the window (the defect's regime). */
export function isPastWindow(facts: PositionFacts): boolean {
  return facts.sinceWindow !== undefined && facts.sinceWindow > 0;
}

export interface PositionSummary {
  count: number;
  /** Tokens produced with seq_len ≤ window (where a window-only defect cannot act). */
  withinWindow: number;
  pastWindow: number;
  minSinceWindow?: number;
  maxSinceWindow?: number;
  /** Count per page offset, only offsets that occur. */
  byPageOffset: Record<number, number>;
}

/** Where a set of (corrupt) tokens sits, for the report's "relative to the window" line. */
export function summarizePositions(all: readonly PositionFacts[]): PositionSummary {
  const summary: PositionSummary = { count: all.length, withinWindow: 0, pastWindow: 0, byPageOffset: {} };
  for (const p of all) {
    if (p.sinceWindow !== undefined) {
      if (p.sinceWindow > 0) summary.pastWindow++;
      else summary.withinWindow++;
      summary.minSinceWindow = Math.min(summary.minSinceWindow ?? Infinity, p.sinceWindow);
      summary.maxSinceWindow = Math.max(summary.maxSinceWindow ?? -Infinity, p.sinceWindow);
    }
    if (p.pageOffset !== undefined)
      summary.byPageOffset[p.pageOffset] = (summary.byPageOffset[p.pageOffset] ?? 0) + 1;
  }
  return summary;
}
