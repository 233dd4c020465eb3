/**
 * The canary loop: a probe round now, then one every `everyMs` on a fixed schedule (a round that
 * overruns its slot skips the slots it missed, so rounds never overlap or pile up), until `stop`
 * aborts. Each round is recorded in the metrics and handed to `onRound`; a verdict change (the
 * first verdict included) is logged as one line. A round that throws is an ERROR round: the loop
 * goes on (the target may come back), while a single round (no `everyMs`) rethrows after
 * recording it, so the error also reaches the textfile.
 */
import { setTimeout as sleepFor } from 'node:timers/promises';
import type { ProbeReport } from '../types.js';
import type { CanaryMetrics } from './metrics.js';
import { roundFromError, roundFromReport, verdictChangeLine, type Round } from './round.js';

export interface Clock {
  now(): number;
  /** Resolves after `ms`, or as soon as `stop` aborts. */
  sleep(ms: number, stop: AbortSignal): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, stop) => sleepFor(ms, undefined, { signal: stop }).catch(() => undefined),
};

export interface CanaryLoop {
  target: string;
  /** Undefined: one round. */
  everyMs?: number;
  runRound(stop: AbortSignal): Promise<ProbeReport>;
  metrics: CanaryMetrics;
  onRound?(round: Round, report: ProbeReport | undefined): void;
  log(line: string): void;
  stop: AbortSignal;
  clock?: Clock;
}

/** Runs rounds until stopped (or once); returns the last finished round. */
export async function runCanary(o: CanaryLoop): Promise<Round | undefined> {
  const clock = o.clock ?? realClock;
  let last: Round | undefined;
  let slot = clock.now();
  for (let index = 1; !o.stop.aborted; index++) {
    const started = clock.now();
    const at = () => ({ index, target: o.target, startedAt: new Date(started), durationMs: clock.now() - started });
    let report: ProbeReport | undefined;
    let failure: { error: unknown } | undefined;
    try {
      report = await o.runRound(o.stop);
    } catch (error) {
      failure = { error };
    }
    if (o.stop.aborted) break; // a round cut short by the stop is no evidence either way
    const round = report ? roundFromReport(report, at()) : roundFromError(failure!.error, at());
    const previous = o.metrics.record(round);
    if (previous !== round.verdict) o.log(verdictChangeLine(previous, round));
    o.onRound?.(round, report);
    last = round;
    if (o.everyMs === undefined) {
      if (failure) throw failure.error;
      break;
    }
    slot += o.everyMs;
    while (slot <= clock.now()) slot += o.everyMs;
    await clock.sleep(slot - clock.now(), o.stop);
  }
  return last;
}
