/**
 * `faultline probe … --every 15m [--metrics-port 9464] [--prometheus-textfile F.prom]`: the probe
 * as a production canary (src/probe/canary/). With --every it probes until SIGINT / SIGTERM, one
 * line per round on stdout (one JSON object per line with --format json) and exits 0 when stopped;
 * without it (a CronJob) it runs one round, prints the usual report and exits by its verdict.
 */
import type { Command } from 'commander';
import { writeFileSync, renameSync } from 'node:fs';
import { resolve } from 'node:path';
import { UserError } from '../../core/errors.js';
import { VERSION } from '../../core/version.js';
import { CATALOG_VERSION } from '../../hazards/catalog-list.js';
import { runCanary } from '../../probe/canary/loop.js';
import { formatInterval, parseInterval } from '../../probe/canary/interval.js';
import { CanaryMetrics, targetLabel } from '../../probe/canary/metrics.js';
import { metricsApp } from '../../probe/canary/metrics-app.js';
import type { Round } from '../../probe/canary/round.js';
import { checkTextfilePath, writeTextfile } from '../../probe/canary/textfile.js';
import { formatText, summaryJson } from '../../probe/format.js';
import { runProbe, type ProbeConfig, type ProbeReport } from '../../probe/run.js';
import { listen, type Listening } from '../../server/listen.js';
import type { CliIO } from '../io.js';

export interface CanaryFlags {
  every?: string;
  metricsPort?: string;
  metricsHost?: string;
  prometheusTextfile?: string;
}

export function addCanaryOptions(command: Command): Command {
  return command
    .option('--every <interval>', 'keep probing: a round now, then one every INTERVAL (30s, 15m, 1h) until SIGINT / SIGTERM')
    .option('--metrics-port <port>', 'serve Prometheus metrics at http://HOST:PORT/metrics (0 picks a free port)')
    .option('--metrics-host <host>', 'address the metrics server binds (default 127.0.0.1; 0.0.0.0 to be scraped from outside a pod)')
    .option('--prometheus-textfile <file>', "write the metrics to FILE.prom after every round (node-exporter's textfile collector)");
}

export const CANARY_HELP = `
Canary: --every 15m keeps probing and logs each verdict change as one line on stderr; --metrics-port
serves /metrics (faultline_probe_verdict{target,verdict}, faultline_probe_corrupt_request_ratio, …);
--prometheus-textfile writes the same after each round. Without --every a single round is run (a CronJob):
  faultline probe --target http://vllm:8000 --golden golden.json --every 15m --metrics-port 9464 --metrics-host 0.0.0.0
  faultline probe --target http://vllm:8000 --golden golden.json --prometheus-textfile /textfile/faultline.prom --format json`;

export const canaryRequested = (f: CanaryFlags) =>
  f.every !== undefined || f.metricsPort !== undefined || f.metricsHost !== undefined || f.prometheusTextfile !== undefined;

interface OutputFlags {
  format: string;
  out?: string;
  html?: string;
  saveGolden?: string;
}

function metricsPort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n > 65535)
    throw new UserError(`--metrics-port ${JSON.stringify(value)} must be a port number from 0 to 65535`, {
      hint: '9464 is the port commonly used for an exporter; 0 picks a free one',
    });
  return n;
}

/** Replaced by a rename, so a reader of --out never sees a half-written report. */
function writeReport(path: string, report: ProbeReport): void {
  const { golden: _golden, ...full } = report;
  writeFileSync(`${path}.tmp`, JSON.stringify(full) + '\n');
  renameSync(`${path}.tmp`, path);
}

function roundLine(round: Round, report: ProbeReport | undefined, format: string): string {
  if (format === 'json')
    return JSON.stringify({
      round: round.index,
      startedAt: round.startedAt.toISOString(),
      durationSeconds: round.durationMs / 1000,
      ...(report ? (summaryJson(report) as object) : { verdict: round.verdict, reason: round.reason }),
    });
  return `${round.startedAt.toISOString()} round ${round.index} ${round.verdict}: ${round.corrupt} of ${round.judged} judged requests corrupt, ${round.failed} failed (${(round.durationMs / 1000).toFixed(1)} s)`;
}

interface CanaryPlan {
  everyMs?: number;
  port?: number;
  host: string;
  textfile?: string;
}

/** Every canary flag checked before anything is probed or bound. */
function planCanary(flags: CanaryFlags & OutputFlags, cwd: string): CanaryPlan {
  if (flags.saveGolden || flags.html)
    throw new UserError(`${flags.saveGolden ? '--save-golden' : '--html'} goes with a single probe, not with the canary flags`, {
      hint: 'record the golden once with a plain probe; the canary writes its latest full report with --out',
    });
  const port = flags.metricsPort === undefined ? undefined : metricsPort(flags.metricsPort);
  if (flags.metricsHost !== undefined && port === undefined)
    throw new UserError('--metrics-host goes with --metrics-port', { hint: '--metrics-port 9464 --metrics-host 0.0.0.0' });
  const textfile = flags.prometheusTextfile === undefined ? undefined : resolve(cwd, flags.prometheusTextfile);
  if (textfile) checkTextfilePath(textfile);
  return { everyMs: flags.every === undefined ? undefined : parseInterval(flags.every), port, host: flags.metricsHost ?? '127.0.0.1', textfile };
}

/** After each round: the textfile, --out, and stdout (a line per round in a loop, the usual report for one round). */
function roundWriter(plan: CanaryPlan, flags: OutputFlags, io: CliIO, metrics: CanaryMetrics) {
  return (round: Round, report: ProbeReport | undefined) => {
    if (plan.textfile) writeTextfile(plan.textfile, metrics.render());
    if (report && flags.out) writeReport(resolve(io.cwd, flags.out), report);
    if (plan.everyMs !== undefined) io.out(roundLine(round, report, flags.format) + '\n');
    else if (report)
      io.out(flags.format === 'json' ? JSON.stringify(summaryJson(report), null, 2) + '\n' : formatText(report, { color: false }));
  };
}

export async function runCanaryCommand(
  config: ProbeConfig,
  flags: CanaryFlags & OutputFlags,
  io: CliIO,
  exitCodes: { clean: number; corrupt: number; inconclusive: number },
): Promise<number> {
  const plan = planCanary(flags, io.cwd);
  const say = (line: string) => io.err(`faultline probe: ${line}\n`);
  const metrics = new CanaryMetrics([config.target.url], { version: VERSION, catalog: String(CATALOG_VERSION) });
  const stopper = new AbortController();
  const stop = () => stopper.abort();
  let server: Listening | undefined;
  if (plan.everyMs !== undefined) {
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  }
  try {
    if (plan.port !== undefined) {
      server = await listen(metricsApp(() => metrics.render()), plan.host, plan.port);
      say(`metrics on ${server.url}/metrics`);
    }
    if (plan.everyMs !== undefined)
      say(`probing ${targetLabel(config.target.url)} every ${formatInterval(plan.everyMs)}; SIGINT or SIGTERM stops`);
    const last = await runCanary({
      target: config.target.url,
      everyMs: plan.everyMs,
      runRound: (signal) => runProbe({ ...config, signal }),
      metrics,
      log: (line) => io.err(`${line}\n`),
      stop: stopper.signal,
      onRound: roundWriter(plan, flags, io, metrics),
    });
    if (plan.everyMs !== undefined) {
      say(`stopped after ${last?.index ?? 0} round(s)`);
      return exitCodes.clean;
    }
    const verdict = last?.verdict;
    return verdict === 'CLEAN' ? exitCodes.clean : verdict === 'CORRUPT' ? exitCodes.corrupt : exitCodes.inconclusive;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await server?.close(1000);
  }
}
