/**
 * Signals during a matrix run. SIGINT (Ctrl-C), SIGTERM (a supervisor), SIGHUP (a closed terminal,
 * a dropped SSH session) and SIGQUIT (Ctrl-\) all mean "stop": the first one aborts the run —
 * cells in flight stop their servers and are not journaled, finished cells are, and `--resume`
 * continues from there. A second signal does not wait: every server group gets SIGKILL and
 * faultline exits with 128 + the signal's number. A SIGKILL of faultline runs no code at all;
 * the reaper (reaper.ts) and the journal's record of each server group cover that case.
 */
import { constants } from 'node:os';
import { killAllGroupsNow } from './process-groups.js';

export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** The shell's convention: a process ended by signal N reports 128 + N. */
export function exitCodeForSignal(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 2);
}

export interface InterruptHandle {
  /** Removes the handlers. */
  release(): void;
  /** The first stop signal received, if any. */
  readonly received: StopSignal | undefined;
}

export function handleInterrupts(controller: AbortController, exit: (code: number) => void = (code) => process.exit(code)): InterruptHandle {
  let first: StopSignal | undefined;
  const handler = (signal: StopSignal): void => {
    if (first === undefined) {
      first = signal;
      controller.abort();
      return;
    }
    killAllGroupsNow();
    exit(exitCodeForSignal(signal));
  };
  for (const s of STOP_SIGNALS) process.on(s, handler);
  return {
    release: () => {
      for (const s of STOP_SIGNALS) process.off(s, handler);
    },
    get received() {
      return first;
    },
  };
}
