/**
 * The check every catalog test runs: the reported combination fires with every condition met, each
 * declared remedy clears it, and each non-remedy leaves it standing (or, where the hazard's data says
 * so, avoids it only at a price the test names). The edit tables must cover the hazard's lists exactly,
 * so adding a remedy without a test fails.
 */
import assert from 'node:assert/strict';
import { evaluateConditions, evaluateHazard } from '../evaluate.js';
import type { Finding } from '../finding.js';
import type { Hazard } from '../hazard.js';
import { buildDeployment, type BuildOptions } from './deployment-builder.js';

export type Edit = (o: BuildOptions) => BuildOptions;

export interface NonRemedyEdit {
  edit: Edit;
  /** 'fires': the hazard still applies. 'avoided-at-a-price': lint clears it, and the detail must match. */
  expect: 'fires' | { avoidedAtAPrice: RegExp };
}

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

export function checkRemedies(
  h: Hazard,
  base: BuildOptions,
  remedies: Record<string, Edit>,
  nonRemedies: Record<string, NonRemedyEdit>,
): void {
  assertFiresFully(h, base);
  assert.deepEqual(
    Object.keys(remedies).sort(),
    h.remedies.map((r) => r.change).sort(),
    `${h.id}: one edit per remedy`,
  );
  assert.deepEqual(
    Object.keys(nonRemedies).sort(),
    h.nonRemedies.map((r) => r.change).sort(),
    `${h.id}: one edit per non-remedy`,
  );
  for (const [change, edit] of Object.entries(remedies))
    assert.equal(fire(h, edit(base)), undefined, `${h.id}: remedy "${change}" should clear it`);
  for (const [change, { edit, expect }] of Object.entries(nonRemedies)) {
    const f = fire(h, edit(base));
    if (expect === 'fires') {
      assert.ok(f, `${h.id}: non-remedy "${change}" should not clear it`);
      assert.equal(f.severity, h.severity, `${h.id}: non-remedy "${change}" keeps the severity`);
    } else {
      assert.equal(f, undefined, `${h.id}: "${change}" avoids the trigger`);
      const details = evaluateConditions(h, buildDeployment(edit(base)))
        .filter((c) => c.status === 'not-met')
        .map((c) => c.detail);
      assert.ok(
        details.some((d) => expect.avoidedAtAPrice.test(d)),
        `${h.id}: "${change}" must say what it costs; got: ${details.join(' | ')}`,
      );
    }
  }
}

/**
 * For hazards whose record cannot place a version (FL010): the reported combination fires as
 * "possibly affected" and each remedy clears even that.
 */
export function checkRemediesWithUnknown(
  h: Hazard,
  base: BuildOptions,
  remedies: Record<string, Edit>,
): void {
  const f = fire(h, base);
  assert.ok(f, `${h.id} should fire (possibly)`);
  assert.deepEqual(
    Object.keys(remedies).sort(),
    h.remedies.map((r) => r.change).sort(),
    `${h.id}: one edit per remedy`,
  );
  assert.equal(h.nonRemedies.length, 0);
  for (const [change, edit] of Object.entries(remedies))
    assert.equal(fire(h, edit(base)), undefined, `${h.id}: remedy "${change}" should clear it`);
}
