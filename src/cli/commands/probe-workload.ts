/**
 * `probe --suite workload` and `probe --replay TRACE`: the stateful workload probe (probe/workload/).
 * It needs a live reference (each request is run there alone) and writes the trace it ran with
 * `--save-trace`, so that a finding replays exactly.
 */
import { resolve } from 'node:path';
import { UserError } from '../../core/errors.js';
import { loadTrace, saveTrace } from '../../probe/workload/trace-file.js';
import { formatWorkloadReport, type WorkloadReport } from '../../probe/workload/report.js';
import { runWorkload, type WorkloadConfig } from '../../probe/workload/run.js';
import type { CliIO } from '../io.js';

export interface WorkloadFlags {
  replay?: string;
  saveTrace?: string;
  rounds?: string;
  golden?: string;
  saveGolden?: string;
}

/** A workload probe ready to run: its configuration, and the checked paths of --out and --save-trace. */
export interface WorkloadRun {
  config: WorkloadConfig;
  out?: string;
  traceOut?: string;
}

export function workloadRequested(opts: { suite: string; replay?: string }): boolean {
  return opts.suite === 'workload' || opts.replay !== undefined;
}

export const WORKLOAD_HELP = `
Workload suite (stateful traffic; needs --reference):
  faultline probe --suite workload --target URL --reference URL --window 128 --save-trace trace.json
  faultline probe --replay trace.json --target URL --reference URL
  faultline probe --suite workload,window-crossing --target URL --reference URL --window 128
The last runs both suites, one after the other: CORRUPT if either is, CLEAN only if both are,
INCONCLUSIVE otherwise (--format json: each suite's summary under "suites"; --out: their full reports).
A seeded trace per round: a shared prefix cached, evicted by a burst past the KV capacity (read from
vllm:cache_config_info on the target's /metrics) and asked for again; a streamed request cancelled
while neighbours sharing its prefix decode; long prompts with prompt_logprobs (chunked prefill). Each
judged request is compared with the same request run alone on the reference. --rounds N caps the
rounds (the sequential test may stop earlier); a failed or cut-off request makes CLEAN impossible.`;

export function workloadConfig(
  base: Omit<WorkloadConfig, 'rounds' | 'replay'>,
  flags: WorkloadFlags,
  cwd: string,
  int: (name: string, value: string, min: number, max?: number) => number,
): WorkloadConfig {
  if (flags.golden || flags.saveGolden)
    throw new UserError('the workload suite compares against a live reference, not a golden', {
      hint: 'pass --reference URL (a server of the same model without the suspect features); use --save-trace to keep the traffic',
    });
  const replay = flags.replay ? loadTrace(resolve(cwd, flags.replay), flags.replay) : undefined;
  return { ...base, rounds: replay ? replay.rounds.length : int('--rounds', flags.rounds ?? '4', 1, 1000), replay };
}

export async function runWorkloadCommand(
  config: WorkloadConfig,
  flags: WorkloadFlags,
  format: 'text' | 'json',
  io: CliIO,
): Promise<WorkloadReport> {
  const report = await runWorkloadQuietly(config, flags, io);
  io.out(format === 'json' ? JSON.stringify(workloadSummaryJson(report), null, 2) + '\n' : formatWorkloadReport(report));
  return report;
}

/** Runs the workload probe (progress on a TTY) and writes --save-trace; prints no report. */
export async function runWorkloadQuietly(config: WorkloadConfig, flags: Pick<WorkloadFlags, 'saveTrace'>, io: CliIO): Promise<WorkloadReport> {
  const report = await runWorkload({
    ...config,
    onProgress: io.isTTY ? (round, rounds, judged, corrupt) => io.err(`\rprobe: round ${round}/${rounds}, ${judged} judged, ${corrupt} corrupt`) : undefined,
  });
  if (io.isTTY) io.err('\r\x1b[K');
  if (flags.saveTrace) {
    try {
      saveTrace(flags.saveTrace, report.trace);
    } catch (e) {
      throw new UserError(`could not write the trace ${flags.saveTrace}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { code: 'E_OUTPUT_PATH' });
    }
  }
  return report;
}

/** `--format json`: the report without the trace and the per-request records, with the corrupt requests. */
export function workloadSummaryJson(report: WorkloadReport): Record<string, unknown> {
  const { trace: _trace, requests, ...summary } = report;
  return { ...summary, corruptRequests: requests.filter((r) => r.outcome === 'corrupt').map((r) => ({ id: r.id, features: r.features, reasons: r.reasons })) };
}
