import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defineHazard, type Status } from './hazard.js';
import { evaluateHazard, lintDeployments } from './evaluate.js';
import {
  buildDeployment,
  canonicalOptions,
  H100,
  TEST_FILE,
} from '../../test/helpers/hazards/deployment-builder.js';

function hazardWith(statuses: Status[], locateAt = 'c0') {
  return defineHazard({
    id: 'FL900',
    alias: 'synthetic',
    engines: ['vllm'],
    severity: 'error',
    summary: 'synthetic hazard',
    mechanism: 'm',
    affected: {},
    confidence: 'confirmed',
    conditions: statuses.map((s, i) => ({
      name: `c${i}`,
      description: `condition ${i}`,
      check: () => ({
        status: s,
        detail: `detail ${i}`,
        at: i === 1 ? { file: 'other.yaml', line: 7, column: 2 } : undefined,
      }),
    })),
    locateAt,
    remedies: [{ id: 'x', change: { add: '--enforce-eager' }, why: 'y' }],
    nonRemedies: [],
    references: [{ title: 't', url: 'https://example.org' }],
    examples: {
      failing: { command: 'vllm serve m --enforce-eager', points: '--enforce-eager' },
      clean: { command: 'vllm serve m' },
    },
    docs: { problem: 'p' },
  });
}

const d = buildDeployment({});

test('all met → a finding at the hazard severity', () => {
  const f = evaluateHazard(hazardWith(['met', 'met']), d);
  assert.equal(f?.severity, 'error');
  assert.equal(f?.possibly, false);
  assert.equal(f?.message, 'synthetic hazard');
});

test('any not-met → no finding, even with unknowns', () => {
  assert.equal(evaluateHazard(hazardWith(['met', 'not-met']), d), undefined);
  assert.equal(evaluateHazard(hazardWith(['unknown', 'not-met']), d), undefined);
});

test('unknown and none not-met → a warning naming the unknown conditions and why', () => {
  const f = evaluateHazard(hazardWith(['met', 'unknown', 'unknown']), d);
  assert.equal(f?.severity, 'warning');
  assert.equal(f?.possibly, true);
  assert.equal(f?.message, 'possibly affected: synthetic hazard — not known: c1 (detail 1); c2 (detail 2)');
});

test('the location is the chosen condition’s, else the launch start', () => {
  assert.deepEqual(evaluateHazard(hazardWith(['met', 'met'], 'c1'), d)?.location, {
    file: 'other.yaml',
    line: 7,
    column: 2,
  });
  assert.deepEqual(evaluateHazard(hazardWith(['met', 'met'], 'c0'), d)?.location, {
    file: TEST_FILE,
    line: 1,
    column: 1,
  });
});

test('lintDeployments runs the whole catalog and orders findings by place', () => {
  const findings = lintDeployments([
    buildDeployment(canonicalOptions()),
    buildDeployment({ ...canonicalOptions(), gpu: H100 }),
  ]);
  assert.ok(findings.some((f) => f.hazard.id === 'FL001' && !f.possibly));
  assert.equal(findings.filter((f) => f.hazard.id === 'FL001').length, 1, 'the H100 launch has no FL001');
  const keys = findings.map((f) => [f.location.file, f.location.line, f.location.column] as const);
  const sorted = [...keys].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1] || a[2] - b[2]));
  assert.deepEqual(keys, sorted);
});

test('a possible finding depends on facts only when no met feature or fact condition singles the launch out', () => {
  const withConditions = (
    conds: { role?: 'feature' | 'fact' | 'bound'; status: Status; byDefault?: boolean }[],
  ) =>
    defineHazard({
      ...hazardWith(['met']),
      conditions: conds.map((c, i) => ({
        name: `c${i}`,
        description: `condition ${i}`,
        ...(c.role ? { role: c.role } : {}),
        check: () => ({
          status: c.status,
          detail: `detail ${i}`,
          ...(c.byDefault ? { byDefault: true } : {}),
        }),
      })),
    });
  const only = (h: ReturnType<typeof withConditions>) => evaluateHazard(h, d)?.dependsOnFactsOnly;
  assert.equal(
    only(withConditions([{ status: 'met' }, { status: 'unknown' }])),
    false,
    'a feature the launch turns on',
  );
  assert.equal(
    only(withConditions([{ role: 'fact', status: 'met' }, { status: 'unknown' }])),
    false,
    'a given fact',
  );
  assert.equal(
    only(withConditions([{ status: 'met', byDefault: true }, { status: 'unknown' }])),
    true,
    'a default',
  );
  assert.equal(
    only(withConditions([{ role: 'bound', status: 'met' }, { status: 'unknown' }])),
    true,
    'a version range',
  );
  assert.equal(
    only(
      withConditions([
        { role: 'bound', status: 'met' },
        { status: 'met', byDefault: true },
      ]),
    ),
    false,
    'definite',
  );
  const f = evaluateHazard(
    withConditions([{ status: 'met' }, { role: 'bound', status: 'met' }, { status: 'unknown' }]),
    d,
  );
  assert.deepEqual(
    f?.conditions.map((c) => c.distinguishing ?? false),
    [true, false, false],
  );
});

test('an unknown answer about something the launch writes (a flag the table lacks) still singles it out', () => {
  const h = defineHazard({
    ...hazardWith(['met']),
    conditions: [
      {
        name: 'c0',
        description: 'a flag of the launch',
        check: () => ({ status: 'unknown', detail: 'not in the table', namedByLaunch: true }),
      },
    ],
  });
  const f = evaluateHazard(h, d);
  assert.equal(f?.possibly, true);
  assert.equal(f?.dependsOnFactsOnly, false);
});
