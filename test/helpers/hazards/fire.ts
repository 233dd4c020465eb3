/**
 * Evaluating one hazard on a hand-built Deployment, for the catalog's condition-level unit tests.
 * Remedies and non-remedies are not checked here: the table tests (rule-tester.ts) apply each one's
 * structured change to the hazard's failing example, keyed on its id.
 */
import assert from 'node:assert/strict';
import { evaluateHazard } from '../../../src/hazards/evaluate.js';
import type { Finding } from '../../../src/hazards/finding.js';
import type { Hazard } from '../../../src/hazards/hazard.js';
import { buildDeployment, type BuildOptions } from './deployment-builder.js';

export function fire(h: Hazard, o: BuildOptions): Finding | undefined {
  return evaluateHazard(h, buildDeployment(o));
}

export function assertFiresFully(h: Hazard, o: BuildOptions): Finding {
  const f = fire(h, o);
  assert.ok(f, `${h.id} should fire`);
  const notMet = f.conditions.filter((c) => c.status !== 'met');
  assert.deepEqual(
    notMet.map((c) => `${c.name}: ${c.detail}`),
    [],
    `${h.id}: every condition should be met`,
  );
  assert.equal(f.severity, h.severity);
  assert.equal(f.possibly, false);
  return f;
}
