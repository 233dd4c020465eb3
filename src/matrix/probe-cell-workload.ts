/**
 * The workload suite as a matrix cell's probe, and one cell verdict from several suites.
 *
 * A cell's workload probe runs a seeded stateful trace (probe/workload/) on the cell's server and
 * each judged request of it alone on the live reference (the kept-alive reference or the plan's
 * reference URL: the trace depends on the cell's KV capacity, so it cannot be recorded up front).
 * Probe round r uses seed + r, so a confirmation of a PASS sends fresh traffic. The workload
 * features every corrupt request shared (after-eviction, cancelled-neighbour, …) travel with the
 * verdict into the journal and the reports.
 */
import { DEFAULT_SEQUENTIAL } from '../oracle/stats.js';
import type { AnySuite } from '../probe/suite-list.js';
import type { WorkloadReport } from '../probe/workload/report.js';
import { runWorkload } from '../probe/workload/run.js';
import type { CellProbeContext, ProbeResult } from './cell-probe.js';
import type { MatrixProbeOptions } from './probe-cell.js';

/** The promise's value, or 'aborted' as soon as the signal aborts (a probe in flight is abandoned on Ctrl-C). */
export async function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | 'aborted'> {
  let onAbort = (): void => {};
  const aborted = new Promise<'aborted'>((resolve) => {
    onAbort = () => resolve('aborted');
    if (signal.aborted) resolve('aborted');
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const first = await Promise.race([work, aborted]);
    if (first === 'aborted') work.catch(() => {}); // the server is about to stop; its failures no longer matter
    return first;
  } finally {
    // one listener per probe, removed when it ends: a long run must not pile them up
    signal.removeEventListener('abort', onAbort);
  }
}

export async function probeWorkloadCell(
  url: string,
  context: CellProbeContext,
  o: MatrixProbeOptions,
  corpus: string,
): Promise<ProbeResult> {
  if (!context.scorerUrl)
    return {
      outcome: 'probe-error',
      detail: 'the workload suite needs a live reference (reference.keep_alive: true, or reference.url)',
    };
  let report: WorkloadReport | 'aborted';
  try {
    report = await untilAborted(
      runWorkload({
        target: { url },
        reference: { url: context.scorerUrl },
        corpus,
        rounds: o.workload_rounds,
        maxTokens: o.max_tokens,
        seed: o.seed + context.round,
        logprobs: o.logprobs,
        ...(o.window !== undefined ? { window: o.window } : {}),
        pageSize: o.page_size,
        earlyStop: o.early_stop,
        sequential: { ...DEFAULT_SEQUENTIAL, targetRate: o.target_rate },
        client: { timeouts: { headersMs: o.timeout_s * 1000 } },
        signal: context.signal,
      }),
      context.signal,
    );
  } catch (e) {
    return { outcome: 'probe-error', detail: `workload probe failed: ${(e as Error)?.message ?? String(e)}` };
  }
  return report === 'aborted' ? { outcome: 'probe-error', detail: 'interrupted' } : workloadVerdict(report);
}

/** CLEAN → pass, CORRUPT → corrupt with the shared features, anything else → probe-error (never pass). */
export function workloadVerdict(report: WorkloadReport): ProbeResult {
  const { judged, corrupt } = report.counts;
  const base = { requests: judged, ...(judged > 0 ? { corruptRate: corrupt / judged } : {}) };
  if (report.verdict === 'CLEAN') return { outcome: 'pass', ...base, detail: report.reason };
  if (report.verdict === 'INCONCLUSIVE')
    return { outcome: 'probe-error', ...base, detail: `workload probe inconclusive: ${report.reason}` };
  const ids = report.requests.filter((q) => q.outcome === 'corrupt').map((q) => q.id);
  const shared = report.sharedByCorrupt.length
    ? `; every corrupt request had: ${report.sharedByCorrupt.join(', ')}`
    : '';
  return {
    outcome: 'corrupt',
    ...base,
    features: [...report.sharedByCorrupt],
    detail: `${report.reason}${shared}; corrupt: ${ids.slice(0, 6).join(', ')}${ids.length > 6 ? ', …' : ''}`,
  };
}

/**
 * One cell verdict from its suites' (in the order they ran; `planned` all of them): corrupt if
 * any is, pass only if every planned suite ran and passed, else timeout or probe-error.
 */
export function combineSuiteResults(
  parts: readonly { suite: AnySuite; result: ProbeResult }[],
  planned: readonly AnySuite[],
): ProbeResult {
  if (planned.length === 1 && parts.length === 1) return parts[0].result;
  const corrupt = parts.find((p) => p.result.outcome === 'corrupt');
  const skipped = planned.filter((s) => !parts.some((p) => p.suite === s));
  const detail = [
    ...parts.map((p) => `${p.suite}: ${p.result.outcome}${p.result.detail ? ` (${p.result.detail})` : ''}`),
    ...skipped.map((s) => `${s}: not run${corrupt ? ` (${corrupt.suite} already found corruption)` : ''}`),
  ].join('; ');
  const requests = parts.reduce((n, p) => n + (p.result.requests ?? 0), 0);
  const features = [...new Set(parts.flatMap((p) => p.result.features ?? []))];
  const hung = parts.flatMap((p) => p.result.hung ?? []);
  const common = { requests, detail, ...(features.length ? { features } : {}), ...(hung.length ? { hung } : {}) };
  if (corrupt)
    return {
      outcome: 'corrupt',
      ...common,
      ...(corrupt.result.corruptRate !== undefined ? { corruptRate: corrupt.result.corruptRate } : {}),
    };
  if (skipped.length === 0 && parts.every((p) => p.result.outcome === 'pass'))
    return { outcome: 'pass', ...common, corruptRate: 0 };
  return {
    outcome: parts.some((p) => p.result.outcome === 'timeout') ? 'timeout' : 'probe-error',
    ...common,
  };
}
