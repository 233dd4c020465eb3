/**
 * What runs a server for one cell. The matrix engine asks an Executor to launch a
 * configuration and gets back a handle with a base URL, or a launch failure; it never knows
 * whether that was a local process (local-executor.ts, with GPU packing in
 * executors/gpu-packing.ts), a Slurm job (executors/slurm/), a Kubernetes Job
 * (executors/kubernetes/) or a fake (fake-executor.ts).
 */
import type { Config } from './space.js';

/**
 * Everything a cell can end as. Never conflated: a server that did not come up is not a
 * pass, a probe that could not talk to it is not a corruption.
 */
export const CELL_OUTCOMES = [
  'pass',
  'corrupt',
  /** The server exited (or its job failed) before it was healthy. */
  'launch-failed',
  'probe-error',
  /** The server ran but never answered its health check in time. */
  'timeout',
  /** A scheduler kept the cell waiting past the plan's limit (Slurm PENDING, a pod Unschedulable). */
  'not-scheduled',
  /** The node under the cell failed (Slurm NODE_FAIL / BOOT_FAIL, a pod's node lost). */
  'node-failed',
  /** The server was killed for memory (Slurm OUT_OF_MEMORY, a container OOMKilled). */
  'out-of-memory',
  /** The scheduler took the cell's resources for other work (Slurm PREEMPTED, a pod preempted or evicted). */
  'preempted',
  /** Someone else cancelled the cell's job (scancel, the Job deleted). */
  'cancelled',
  /** The cell's job ran past its scheduler time limit (Slurm TIMEOUT / DEADLINE, activeDeadlineSeconds). */
  'time-limit',
  /** The container image could not be pulled (ErrImagePull, ImagePullBackOff, InvalidImageName). */
  'image-pull-failed',
] as const;
export type CellOutcome = (typeof CELL_OUTCOMES)[number];

/** How an outcome is written in tables and progress lines: PASS, NODE-FAILED, … */
export function outcomeLabel(outcome: string): string {
  return outcome.toUpperCase();
}

/** Outcomes a level of the launch can cause (a bad flag, a level that needs more memory), as opposed to the machine or the scheduler. */
export const LAUNCH_FAULT_OUTCOMES: readonly CellOutcome[] = ['launch-failed', 'timeout', 'out-of-memory'];

/** Every way a cell can end without a probe verdict because its server did not (or no longer) run. */
export type LaunchFailure = Exclude<CellOutcome, 'pass' | 'corrupt' | 'probe-error'>;

/** Outcomes that say something about corruption. */
export function isConclusive(outcome: CellOutcome): outcome is 'pass' | 'corrupt' {
  return outcome === 'pass' || outcome === 'corrupt';
}

export interface LaunchRequest {
  /** Stable id of the cell, also the name of its log directory. */
  cellId: string;
  config: Config;
  /** factor → level, for logs and for fakes. */
  levels: Record<string, string>;
  /** Command and environment with placeholders ({port}, {host}, {cell_dir}, {run_dir}, {faultline_root}) still in. */
  argv: string[];
  env: Record<string, string>;
  /** Which parallel slot runs it (0-based): selects GPUs. */
  slot: number;
  /** CUDA_VISIBLE_DEVICES chosen by the caller instead of the slot's (the kept-alive reference). */
  gpus?: string;
  /** GPUs the cell needs (launch.gpus, or the product of its levels' gpus); 1 when not given. */
  gpuCount?: number;
}

export interface ServerHandle {
  /** e.g. http://127.0.0.1:41234 */
  baseUrl: string;
  /** Stops the server and everything it started; resolves when they are gone. Safe to call twice. */
  stop(): Promise<void>;
  /**
   * Whether the server went away on its own while it was being probed (a scheduler ended its
   * job: cancelled, node failure, preemption), asked before stop(). A probe of a server that
   * vanished says nothing about corruption, so the cell records this instead.
   */
  fate?(): Promise<ServerFate | undefined>;
}

/** How a server ended that was not stopped by the run. */
export interface ServerFate {
  outcome: LaunchFailure;
  detail: string;
}

export type LaunchResult = { ok: true; server: ServerHandle } | { ok: false; outcome: LaunchFailure; detail: string };

export interface Executor {
  /** Servers it can run at once. */
  readonly slots: number;
  /**
   * A server left up for a later cell with the same launch would keep resources another slot's
   * launch waits for (GPU packing: its GPUs), so the run stops each server once its cells are done.
   */
  readonly idleServersBlock?: boolean;
  launch(request: LaunchRequest, signal: AbortSignal): Promise<LaunchResult>;
  /** Ends what the executor still holds for the run (jobs of an earlier run that nothing re-attached to); called once, after the run. */
  close?(): Promise<void>;
}
