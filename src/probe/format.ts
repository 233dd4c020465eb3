/**
 * The probe report as text (a summary a person reads) or JSON (everything but the token-level
 * exchanges, which go to --out). Model output is shown as the server detokenized it, with
 * control characters escaped so a report cannot rewrite the terminal.
 */
import pc from 'picocolors';
import type { PositionSummary } from '../oracle/positions.js';
import { describeFailureTolerance } from '../oracle/stats.js';
import { formatCapabilities } from './capabilities.js';
import type { ProbeReport } from './run.js';

const pct = (x: number) => `${(100 * x).toFixed(x < 0.01 ? 2 : 1)}%`;

/** Escape control characters (newlines shown as ⏎) so model text stays on its line. */
export function printable(text: string): string {
  return (
    text
      .replace(/\n/g, '⏎')
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
  );
}

function where(p: PositionSummary, window: number | undefined): string {
  if (p.count === 0) return 'no corrupt tokens';
  const offsets = Object.entries(p.byPageOffset)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6)
    .map(([o, n]) => `${o} (${n}×)`)
    .join(', ');
  const rel =
    window === undefined
      ? 'window unknown'
      : p.withinWindow === 0
        ? `all ${p.pastWindow} past the window (position − window ${p.minSinceWindow} … ${p.maxSinceWindow})`
        : `${p.pastWindow} past the window, ${p.withinWindow} within it (position − window ${p.minSinceWindow} … ${p.maxSinceWindow})`;
  return `${rel}; page offsets ${offsets}`;
}

/**
 * What the verdict line says of failed requests, so a CLEAN with failures never reads as a plain
 * CLEAN: "2 of 64 requests failed: POST /v1/completions: HTTP 500 ×2; at most 10% of requests may fail".
 */
export function failedRequestsNote(r: ProbeReport): string {
  const failed = r.requests.filter((q) => q.judgement.verdict === 'failed');
  if (failed.length === 0) return '';
  const why = new Map<string, number>();
  for (const q of failed) {
    const first = q.judgement.errors[0] ?? 'no answer';
    why.set(first, (why.get(first) ?? 0) + 1);
  }
  const reasons = [...why]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([m, n]) => `${printable(m)}${n > 1 ? ` ×${n}` : ''}`);
  const more = why.size > 3 ? `, ${why.size - 3} other reason(s)` : '';
  return `${failed.length} of ${r.requests.length} requests failed: ${reasons.join(', ')}${more}; ${describeFailureTolerance(r.settings.sequential)}`;
}

export function formatText(r: ProbeReport, options: { color?: boolean } = {}): string {
  const c = options.color ? pc : pc.createColors(false);
  const paint = r.verdict === 'CLEAN' ? c.green : r.verdict === 'CORRUPT' ? c.red : c.yellow;
  const lines: string[] = [];
  const s = r.settings;
  const failures = failedRequestsNote(r);
  lines.push(`faultline probe: ${paint(c.bold(r.verdict))}${failures ? ` (${failures})` : ''}`);
  lines.push(`  target     ${r.target.url}${r.target.model ? ` (model ${r.target.model})` : ''}`);
  lines.push(
    `  reference  ${r.reference.golden ? `golden ${r.reference.golden}` : r.reference.url}${r.reference.model ? ` (model ${r.reference.model})` : ''}${r.reference.scorer ? `, scored by ${r.reference.scorer}` : ''}`,
  );
  lines.push(
    `  suite      ${s.suite}${s.window !== undefined ? `, window ${s.window}` : ''}, page ${s.pageSize}, ${s.requests} planned, seed ${s.seed}`,
  );
  lines.push(`  verdict    ${r.reason}`);
  const n = r.counts;
  lines.push(
    `  requests   ${n.judged} judged: ${n.identical} identical, ${n.benignDrift} benign drift, ${n.corrupt} corrupt; ${n.failed} failed${n.notRun ? `; ${n.notRun} not run (decided early)` : ''}`,
  );
  lines.push(
    `  tokens     ${r.tokens.corrupt} corrupt of ${r.tokens.judged} judged (${pct(r.tokens.rate)}, ≤ ${pct(r.tokens.upper)} at ${pct(s.sequential.confidence)})`,
  );
  lines.push(`  where      ${where(r.corruptPositions, s.window)}`);
  const margins = r.requests
    .map((q) => q.judgement.margin?.margin)
    .filter((m): m is number => m !== undefined);
  if (margins.length)
    lines.push(
      `  margin     near-tie margin ${Math.min(...margins).toFixed(2)}–${Math.max(...margins).toFixed(2)} nat (from the noise observed between the two servers)`,
    );
  if (r.examples.length) {
    lines.push('', 'Corrupt examples (reference vs candidate, corrupt tokens ⟦marked⟧):');
    for (const e of r.examples) {
      const first = e.corrupt[0];
      const loc = [
        `generated index ${first.index}`,
        `position ${first.position}`,
        first.sinceWindow !== undefined ? `position − window ${first.sinceWindow}` : '',
        first.pageOffset !== undefined ? `page offset ${first.pageOffset}` : '',
      ]
        .filter(Boolean)
        .join(', ');
      lines.push(`  ${e.id} (${loc})`);
      lines.push(`    reference: ${printable(e.reference)}`);
      lines.push(`    candidate: ${printable(e.candidate).replace(/⟦(.*?)⟧/g, (_m, t) => c.red(`⟦${t}⟧`))}`);
    }
  }
  if (r.errors.length) {
    lines.push('', 'Errors (every failed attempt, retried or not):');
    for (const e of r.errors.slice(0, 10)) lines.push(`  ${e.count}× ${printable(e.message)}`);
    if (r.errors.length > 10) lines.push(`  … ${r.errors.length - 10} more in the JSON report`);
  }
  if (r.capabilities) {
    lines.push('');
    lines.push(...formatCapabilities('target', r.capabilities.target).map((l) => l.slice(2)));
    if (r.capabilities.reference) lines.push(...formatCapabilities('reference', r.capabilities.reference).map((l) => l.slice(2)));
  }
  if (r.notes.length) {
    lines.push('', 'Notes:');
    for (const note of r.notes) lines.push(`  - ${note}`);
  }
  return lines.join('\n') + '\n';
}

/** The report without token-level data: per request, its verdict and evidence. */
export function summaryJson(r: ProbeReport): unknown {
  const { requests, golden: _golden, ...rest } = r;
  return {
    ...rest,
    failedRequests: failedRequestsNote(r) || undefined,
    requests: requests.map((q) => ({
      id: q.id,
      promptLength: q.promptTokens.length,
      maxTokens: q.maxTokens,
      verdict: q.judgement.verdict,
      reasons: q.judgement.reasons,
      notes: q.judgement.notes,
      errors: q.judgement.errors,
      firstDivergence: q.judgement.comparison?.divergence,
      margin: q.judgement.margin,
      crossScore: q.judgement.crossScore
        ? {
            judged: q.judgement.crossScore.judged,
            counts: q.judgement.crossScore.counts,
            meanNll: q.judgement.crossScore.meanNll,
          }
        : undefined,
      excessRepetition: q.judgement.excessRepetition.map(({ canonical: _c, ...span }) => span),
      corruptTokens: q.judgement.corruptTokens,
    })),
  };
}
