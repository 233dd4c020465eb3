/** One launched configuration and what the probe said about it: a row of the attribution matrix. */
import type { ProbeResult } from './cell-probe.js';
import type { CellOutcome } from './executor.js';

/** Why a configuration was run. */
export type Phase = 'maximal' | 'covering' | 'localize' | 'verify' | 'generalize';

export interface CellResult {
  id: string;
  phase: Phase;
  /** Level index per factor. */
  config: number[];
  /** factor → level. */
  levels: Record<string, string>;
  outcome: CellOutcome;
  /** Share of requests judged corrupt in the deciding probe (0 for a pass). */
  corruptRate?: number;
  /** Every probe round, in order (empty when the launch failed). */
  probes: ProbeResult[];
  detail?: string;
  /** Workload features every corrupt request of the deciding probe had (workload suite). */
  features?: string[];
  /** Set on a second launch of a configuration whose PASS had fewer probe rounds than a later use needed. */
  recheckOf?: string;
  slot: number;
  /** Set when the cell ran on a server another cell launched (same launch arguments): that cell's id. */
  reusedServer?: string;
  startedAt: string;
  durationMs: number;
}
