/**
 * What lint and guard report: one hazard that applies (or possibly applies) to one launch.
 * Formatters (text, JSON, SARIF) read only this shape.
 */
import type { SourceLocation } from '../core/errors.js';
import type { Deployment } from '../deployment/deployment.js';
import type { Hazard, Severity, Status } from './hazard.js';

export interface EvaluatedCondition {
  name: string;
  description: string;
  status: Status;
  detail: string;
  at?: SourceLocation;
  /**
   * Met, and a distinguishing feature or a given fact (a `feature` or `fact` condition not met merely by
   * the engine's default), or unknown about something the launch itself writes (`namedByLaunch`): what
   * makes this launch, not every launch, a candidate.
   */
  distinguishing?: boolean;
}

export interface Finding {
  hazard: Hazard;
  /** The hazard's severity when every condition is met; 'warning' when some are unknown. */
  severity: Severity;
  /** True when no condition is not-met but some are unknown ("possibly affected"). */
  possibly: boolean;
  /**
   * Possibly affected, and no condition the launch or the facts given meet distinguishes it: only facts
   * not given (GPU, model config, versions) could make it apply. lint sums these up in one line instead
   * of listing them (`--possible` lists them), and they never change the exit status.
   */
  dependsOnFactsOnly: boolean;
  message: string;
  location: SourceLocation;
  conditions: EvaluatedCondition[];
  deployment: Deployment;
}
