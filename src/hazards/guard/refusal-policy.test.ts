import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UserError } from '../../core/errors.js';
import { buildDeployment } from '../../../test/helpers/hazards/deployment-builder.js';
import type { Finding } from '../finding.js';
import type { Confidence, Hazard, Severity } from '../hazard.js';
import { parseRefuseOn, refuses } from './refusal-policy.js';

function finding(id: string, confidence: Confidence, severity: Severity, possibly = false): Finding {
  const hazard = { id, confidence, severity } as unknown as Hazard;
  return {
    hazard,
    severity: possibly ? 'warning' : severity,
    possibly,
    dependsOnFactsOnly: false,
    message: 'm',
    location: { file: 'f', line: 1, column: 1 },
    conditions: [],
    deployment: buildDeployment({}),
  };
}

const none = new Set<string>();

test('the default level refuses confirmed and reproduced errors, not reported warnings', () => {
  assert.equal(refuses(finding('FL003', 'confirmed', 'error'), 'reproduced', none), true);
  assert.equal(refuses(finding('FL001', 'reproduced', 'error'), 'reproduced', none), true);
  assert.equal(refuses(finding('FL002', 'reported', 'warning'), 'reproduced', none), false);
  assert.equal(refuses(finding('FL004', 'confirmed', 'warning'), 'reproduced', none), false);
});

test('confirmed refuses only on confirmed errors', () => {
  assert.equal(refuses(finding('FL003', 'confirmed', 'error'), 'confirmed', none), true);
  assert.equal(refuses(finding('FL001', 'reproduced', 'error'), 'confirmed', none), false);
});

test('reported refuses on every definite finding, warnings included', () => {
  assert.equal(refuses(finding('FL002', 'reported', 'warning'), 'reported', none), true);
  assert.equal(refuses(finding('FL004', 'confirmed', 'warning'), 'reported', none), true);
  assert.equal(refuses(finding('FL001', 'reproduced', 'error'), 'reported', none), true);
});

test('never: a possibly-affected finding, an allowed hazard, FL000', () => {
  assert.equal(refuses(finding('FL001', 'reproduced', 'error', true), 'reported', none), false);
  assert.equal(refuses(finding('FL001', 'reproduced', 'error'), 'reported', new Set(['FL001'])), false);
  assert.equal(refuses(finding('FL000', 'confirmed', 'warning'), 'reported', none), false);
});

test('--refuse-on takes the three levels (any case) and names them when given another', () => {
  assert.equal(parseRefuseOn('Reported'), 'reported');
  assert.equal(parseRefuseOn('confirmed'), 'confirmed');
  assert.throws(
    () => parseRefuseOn('errors'),
    (e: unknown) => e instanceof UserError && /confirmed, reproduced, reported/.test(e.hint ?? ''),
  );
});
