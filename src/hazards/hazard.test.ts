import { test } from 'node:test';
import assert from 'node:assert/strict';
import { atLeastAsStrong, defineHazard, type Hazard } from './hazard.js';

const valid = (): Hazard => ({
  id: 'FL999',
  alias: 'test-hazard',
  engines: ['vllm'],
  severity: 'error',
  summary: 's',
  mechanism: 'm',
  affected: {},
  confidence: 'confirmed',
  conditions: [{ name: 'always', description: 'd', check: () => ({ status: 'met', detail: 'x' }) }],
  locateAt: 'always',
  remedies: [{ id: 'c', change: { add: '--enforce-eager' }, why: 'w' }],
  nonRemedies: [],
  references: [{ title: 't', url: 'https://example.org/x' }],
  examples: {
    failing: { command: 'vllm serve m --enforce-eager', points: '--enforce-eager' },
    clean: { command: 'vllm serve m' },
  },
  docs: { problem: 'p' },
});

test('a well-formed declaration is accepted and frozen', () => {
  const h = defineHazard(valid());
  assert.ok(Object.isFrozen(h));
});

test('malformed declarations fail at definition time with the reason', () => {
  const cases: [Partial<Hazard>, RegExp][] = [
    [{ id: 'FL1' as Hazard['id'] }, /not FLnnn/],
    [{ alias: 'Not Kebab' }, /not kebab-case/],
    [{ conditions: [] }, /no conditions/],
    [{ locateAt: 'nowhere' }, /locateAt "nowhere"/],
    [{ remedies: [] }, /no remedies/],
    [{ references: [{ title: 't', url: 'http://x' }] }, /not https/],
    [
      {
        conditions: [
          { name: 'always', description: 'd', check: () => ({ status: 'met', detail: '' }) },
          { name: 'always', description: 'd', check: () => ({ status: 'met', detail: '' }) },
        ],
      },
      /duplicate condition names/,
    ],
    [{ confidence: 'reported', severity: 'error' }, /reported \(unconfirmed\) hazard is a warning/],
    [{ confidence: 'reproduced' }, /names its reproduction or attribution in confidenceReason/],
    [{ confidence: 'rumoured' as Hazard['confidence'] }, /is not one of confirmed, reproduced, reported/],
  ];
  for (const [patch, re] of cases) assert.throws(() => defineHazard({ ...valid(), ...patch }), re);
});

test('a reproduced hazard with its reason may be an error', () => {
  const h = defineHazard({
    ...valid(),
    confidence: 'reproduced',
    confidenceReason: 'a standalone kernel test with controls',
  });
  assert.equal(h.severity, 'error');
});

test('confidence levels order confirmed ≥ reproduced ≥ reported', () => {
  assert.ok(atLeastAsStrong('confirmed', 'reproduced'));
  assert.ok(atLeastAsStrong('reproduced', 'reproduced'));
  assert.ok(!atLeastAsStrong('reported', 'reproduced'));
  assert.ok(atLeastAsStrong('reported', 'reported'));
  assert.ok(!atLeastAsStrong('reproduced', 'confirmed'));
});
