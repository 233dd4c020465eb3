/**
 * `probe --suite workload,window-crossing`: both suites against the same target, one after the
 * other (in the order written), and one verdict (probe/suite-list.ts: CORRUPT if either is, CLEAN
 * only if both are, INCONCLUSIVE otherwise). Each suite's report follows the combined line; the
 * JSON holds each suite's summary under `suites`, and `--out` their full reports.
 */
import { writeFileSync } from 'node:fs';
import { combineVerdicts, WORKLOAD_SUITE, type AnySuite, type SuiteVerdict } from '../../probe/suite-list.js';
import { formatText, summaryJson } from '../../probe/format.js';
import { runProbe, type ProbeConfig } from '../../probe/run.js';
import type { EndpointVerdict } from '../../oracle/stats.js';
import type { CliIO } from '../io.js';
import { formatWorkloadReport } from '../../probe/workload/report.js';
import { runWorkloadQuietly, workloadSummaryJson, type WorkloadRun } from './probe-workload.js';

interface SuiteRun extends SuiteVerdict {
  text: string;
  summary: unknown;
  full: unknown;
}

const EXIT_OF: Record<EndpointVerdict, number> = { CLEAN: 0, CORRUPT: 1, INCONCLUSIVE: 3 };

export async function probeSuites(
  suites: readonly AnySuite[],
  window: ProbeConfig,
  workload: WorkloadRun,
  format: 'text' | 'json',
  io: CliIO,
): Promise<number> {
  const runs: SuiteRun[] = [];
  for (const suite of suites) {
    if (suite === WORKLOAD_SUITE) {
      const r = await runWorkloadQuietly(workload.config, { saveTrace: workload.traceOut }, io);
      runs.push({
        suite,
        verdict: r.verdict,
        reason: r.reason,
        text: formatWorkloadReport(r),
        summary: workloadSummaryJson(r),
        full: r,
      });
    } else {
      const r = await runProbe({
        ...window,
        onProgress: io.isTTY
          ? (done, total) => io.err(`\rprobe: ${suite}: ${done}/${total} requests judged`)
          : undefined,
      });
      if (io.isTTY) io.err('\r\x1b[K');
      const { golden: _golden, ...full } = r;
      runs.push({
        suite,
        verdict: r.verdict,
        reason: r.reason,
        text: formatText(r, { color: io.isTTY && !io.env.NO_COLOR }),
        summary: summaryJson(r),
        full,
      });
    }
  }
  const combined = combineVerdicts(runs);
  const head = { suite: suites.join(','), verdict: combined.verdict, reason: combined.reason };
  io.out(
    format === 'json'
      ? JSON.stringify(
          { ...head, suites: runs.map((r) => ({ suite: r.suite, ...(r.summary as object) })) },
          null,
          2,
        ) + '\n'
      : [
          `faultline probe --suite ${head.suite}: ${combined.verdict} (${combined.reason})`,
          '',
          ...runs.map((r) => r.text),
        ].join('\n'),
  );
  if (workload.out)
    writeFileSync(
      workload.out,
      JSON.stringify({ ...head, suites: runs.map((r) => ({ suite: r.suite, report: r.full })) }) + '\n',
    );
  return EXIT_OF[combined.verdict];
}
