/**
 * What runs a server for one cell. The matrix engine asks an Executor to launch a
 * configuration and gets back a handle with a base URL, or a launch failure; it never knows
 * whether that was a local process (local-executor.ts), a fake (fake-executor.ts), or,
 * later, something remote.
 */
import type { Config } from './space.js';

/**
 * Everything a cell can end as. Never conflated: a server that did not come up is not a
 * pass, a probe that could not talk to it is not a corruption.
 */
export const CELL_OUTCOMES = ['pass', 'corrupt', 'launch-failed', 'probe-error', 'timeout'] as const;
export type CellOutcome = (typeof CELL_OUTCOMES)[number];

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
}

export interface ServerHandle {
  /** e.g. http://127.0.0.1:41234 */
  baseUrl: string;
  /** Stops the server and everything it started; resolves when they are gone. Safe to call twice. */
  stop(): Promise<void>;
}

export type LaunchResult =
  | { ok: true; server: ServerHandle }
  | { ok: false; outcome: 'launch-failed' | 'timeout'; detail: string };

export interface Executor {
  /** Servers it can run at once. */
  readonly slots: number;
  launch(request: LaunchRequest, signal: AbortSignal): Promise<LaunchResult>;
}
