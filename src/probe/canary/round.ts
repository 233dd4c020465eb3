/**
 * One canary round, reduced to what the metrics and the log need. A round that could not run at
 * all (an exception, e.g. the reference refused the tokenizer check) is an ERROR round: never
 * folded into INCONCLUSIVE, and never read as clean.
 */
import type { EndpointVerdict } from '../../oracle/stats.js';
import type { ProbeReport } from '../types.js';

export type CanaryVerdict = EndpointVerdict | 'ERROR';
export const CANARY_VERDICTS: readonly CanaryVerdict[] = ['CLEAN', 'CORRUPT', 'INCONCLUSIVE', 'ERROR'];

export interface Round {
  /** 1 for the first round of this process. */
  index: number;
  target: string;
  verdict: CanaryVerdict;
  reason: string;
  startedAt: Date;
  durationMs: number;
  judged: number;
  corrupt: number;
  failed: number;
}

export function roundFromReport(
  report: ProbeReport,
  at: { index: number; target: string; startedAt: Date; durationMs: number },
): Round {
  return {
    ...at,
    verdict: report.verdict,
    reason: report.reason,
    judged: report.counts.judged,
    corrupt: report.counts.corrupt,
    failed: report.counts.failed,
  };
}

export function roundFromError(
  error: unknown,
  at: { index: number; target: string; startedAt: Date; durationMs: number },
): Round {
  const message = error instanceof Error ? error.message : String(error);
  return { ...at, verdict: 'ERROR', reason: message, judged: 0, corrupt: 0, failed: 0 };
}

/**
 * The one line logged when a target's verdict changes (the first verdict counts as a change from
 * none): when, which target, from → to, and the round's evidence.
 */
export function verdictChangeLine(previous: CanaryVerdict | undefined, round: Round): string {
  const evidence =
    round.verdict === 'ERROR'
      ? round.reason
      : `${round.corrupt} of ${round.judged} judged requests corrupt, ${round.failed} failed; ${round.reason}`;
  const change = previous === undefined ? `first verdict ${round.verdict}` : `verdict ${previous} → ${round.verdict}`;
  return `faultline probe: ${round.startedAt.toISOString()} ${round.target}: ${change} (round ${round.index}: ${evidence.replace(/\s+/g, ' ')})`;
}
