/**
 * Slurm job states (squeue %T, sacct State) and what each means for a cell. A state that ends
 * the job before its server was healthy, or while it was probed, becomes a cell outcome of its
 * own: a node failure is not a bad flag, a preemption is not a crash, and none is a pass.
 * (Slurm's list: the JOB STATE CODES section of squeue(1).)
 */
import type { LaunchFailure } from '../../executor.js';

/** Waiting for resources or a start time. */
export const WAITING_STATES = new Set([
  'PENDING',
  'CONFIGURING',
  'REQUEUED',
  'REQUEUE_HOLD',
  'REQUEUE_FED',
  'RESV_DEL_HOLD',
  'SUSPENDED',
  'STOPPED',
  'RESIZING',
]);
/** Running (COMPLETING: ending, the final state not known yet). */
export const RUNNING_STATES = new Set(['RUNNING', 'SIGNALING', 'STAGE_OUT']);

const TERMINAL: Record<string, LaunchFailure> = {
  // the server exited on its own before (or while) it served: a crash or a bad flag
  COMPLETED: 'launch-failed',
  FAILED: 'launch-failed',
  SPECIAL_EXIT: 'launch-failed',
  REVOKED: 'launch-failed',
  CANCELLED: 'cancelled',
  TIMEOUT: 'time-limit',
  DEADLINE: 'time-limit',
  NODE_FAIL: 'node-failed',
  BOOT_FAIL: 'node-failed',
  OUT_OF_MEMORY: 'out-of-memory',
  PREEMPTED: 'preempted',
};

/** sacct writes "CANCELLED by 0"; squeue writes "CANCELLED". */
export function baseState(state: string): string {
  return state.trim().split(/\s+/)[0].toUpperCase();
}

export function isTerminal(state: string): boolean {
  return baseState(state) in TERMINAL;
}

/** The outcome of a job that ended in `state`; undefined while it has not ended. */
export function outcomeOfEnded(state: string): LaunchFailure | undefined {
  return TERMINAL[baseState(state)];
}

export const TERMINAL_STATES = Object.keys(TERMINAL);
