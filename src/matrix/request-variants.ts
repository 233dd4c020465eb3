/**
 * Request-scope factors: the combinations of their levels a run probes. Every combination the
 * constraints allow is probed on each launch that needs it, and the reference is recorded once per
 * combination (its outputs legitimately change with, say, a repetition penalty, so a cell is only
 * ever compared with the reference at the same request fields).
 */
import { requestFieldsFor } from './launch-spec.js';
import type { MatrixPlan } from './plan-compile.js';
import { UNSET, type Config } from './space.js';

/** Most request-level combinations a plan may have: each is probed per launch and recorded once. */
export const MAX_REQUEST_VARIANTS = 32;

export const hasRequestScope = (plan: Pick<MatrixPlan, 'scopes'>): boolean => plan.scopes.includes('request');

/** Every valid combination of request-scope levels, as partial configurations (launch factors UNSET). */
export function requestVariants(plan: Pick<MatrixPlan, 'scopes' | 'space' | 'constraints'>): number[][] {
  const factors = plan.scopes.flatMap((s, f) => (s === 'request' ? [f] : []));
  const out: number[][] = [];
  const partial: number[] = plan.space.names.map(() => UNSET);
  const walk = (i: number): void => {
    if (i === factors.length) {
      if (plan.constraints.canExtend(partial)) out.push([...partial]);
      return;
    }
    for (let v = 0; v < plan.space.levels[factors[i]].length; v++) {
      partial[factors[i]] = v;
      walk(i + 1);
    }
    partial[factors[i]] = UNSET;
  };
  if (factors.length) walk(0);
  return out;
}

/** The same text for two configurations with the same request-scope levels. */
export function requestKey(plan: Pick<MatrixPlan, 'scopes' | 'space'>, config: Config): string {
  return JSON.stringify(plan.scopes.flatMap((s, f) => (s === 'request' ? [[plan.space.names[f], plan.space.levels[f][config[f]]]] : [])));
}

/** What the journal keeps for the reference when the plan has request-scope factors. */
export interface ReferenceByRequest {
  byRequest: Record<string, unknown>;
}

export async function captureVariants(
  plan: MatrixPlan,
  capture: (request: Record<string, unknown> | undefined) => Promise<unknown>,
): Promise<unknown> {
  if (!hasRequestScope(plan)) return capture(undefined);
  const byRequest: Record<string, unknown> = {};
  for (const v of requestVariants(plan)) byRequest[requestKey(plan, v)] = await capture(requestFieldsFor(plan, v));
  return { byRequest } satisfies ReferenceByRequest;
}

/** The reference data a configuration's cells are compared with. */
export function referenceFor(plan: MatrixPlan, data: unknown, config: Config): unknown {
  return hasRequestScope(plan) ? (data as ReferenceByRequest).byRequest[requestKey(plan, config)] : data;
}

/** The other request-level variants of a configuration's launch: probed on the same server. */
export function siblingsOf(plan: MatrixPlan, config: Config): number[][] {
  return requestVariants(plan)
    .map((variant) => config.map((v, f) => (plan.scopes[f] === 'request' ? variant[f] : v)))
    .filter((c) => c.some((v, f) => v !== config[f]) && plan.constraints.isValid(c));
}
