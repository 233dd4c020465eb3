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
}

export interface Finding {
  hazard: Hazard;
  /** The hazard's severity when every condition is met; 'warning' when some are unknown. */
  severity: Severity;
  /** True when no condition is not-met but some are unknown ("possibly affected"). */
  possibly: boolean;
  message: string;
  location: SourceLocation;
  conditions: EvaluatedCondition[];
  deployment: Deployment;
}
