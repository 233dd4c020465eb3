/**
 * The one answer every model-dependent condition gives when lint has no model config: unknown, naming
 * what stays unknown and the option that settles it, located at the model argument.
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { ConditionResult } from '../hazard.js';

export function noModelFacts(d: Deployment, whatIsUnknown: string): ConditionResult {
  return {
    status: 'unknown',
    detail: `no model config given (pass --model-config PATH to the config.json or checkpoint directory), so ${whatIsUnknown} is unknown`,
    at: d.model?.at,
  };
}
