/**
 * The contract between `faultline matrix` and the probe (issue 6): the matrix hands over base
 * URLs, the probe says whether the server's outputs match the trusted reference.
 *
 * - captureReference runs once per run against the trusted server (once per combination of
 *   request-level fields, when the plan has request-scope factors) and returns whatever the probe
 *   needs later (e.g. golden token sequences). It must be JSON-serializable: the journal stores
 *   it, so a resumed run does not relaunch the reference.
 * - probeCell compares one candidate server with that reference. `round` 0 is the first look;
 *   rounds 1…confirm are re-probes of a PASS on the same server and should use fresh prompts.
 *   It returns a verdict, never throws for a misbehaving server: an HTTP failure is
 *   `probe-error`, a request past its deadline is `timeout`.
 */
export interface ProbeResult {
  outcome: 'pass' | 'corrupt' | 'probe-error' | 'timeout';
  /** Share of requests judged corrupt, 0…1 (when the probe counts requests). */
  corruptRate?: number;
  requests?: number;
  detail?: string;
  /** Workload features every corrupt request had (the workload suite names them: after-eviction, cancelled-neighbour, …). */
  features?: string[];
  /** Requests that never answered within the probe's deadline (their ids): the outcome is then `timeout`, or `corrupt` if outputs were wrong too. */
  hung?: string[];
}

export interface CellProbeContext {
  cellId: string;
  round: number;
  /** What captureReference returned for this cell's request fields. */
  reference: unknown;
  /** The cell's levels, request-scope ones included (a reused server was launched for another cell). */
  levels?: Record<string, string>;
  /** Request-level fields every probe request of this cell carries (request-scope factors). */
  request?: Record<string, unknown>;
  /** A live server of the reference configuration that can score this cell's outputs, if any. */
  scorerUrl?: string;
  /** The plan's `probe:` options (suite, requests, max_tokens, …). */
  options: Record<string, unknown>;
  signal: AbortSignal;
}

export interface MatrixProbe {
  /** `request`: request-level fields the reference is recorded with (one capture per combination). */
  captureReference(url: string, options: Record<string, unknown>, signal: AbortSignal, request?: Record<string, unknown>): Promise<unknown>;
  probeCell(url: string, context: CellProbeContext): Promise<ProbeResult>;
}
