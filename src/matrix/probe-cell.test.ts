import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UserError } from '../core/errors.js';
import { parsePlan } from './plan-load.js';
import { parseProbeOptions, requestsForClean } from './probe-cell.js';

const plan = (probe: string) =>
  parsePlan(
    'plan.yaml',
    `launch: { argv: [srv, --port, "{port}"] }\nfactors:\n  a: { levels: { "off": {}, "on": { argv: [--a] } } }\nprobe:\n${probe}`,
  );

test('requests below what a PASS needs at target_rate are refused at load, naming the number and the line', () => {
  assert.equal(requestsForClean(0.1), 29);
  assert.equal(requestsForClean(0.3), 9);
  const p = plan('  window: 128\n  requests: 12\n  target_rate: 0.1\n');
  assert.throws(
    () => parseProbeOptions(p.probe, 'plan.yaml', p.probeAt),
    (e: unknown) =>
      e instanceof UserError &&
      /probe\.requests is 12, but a PASS at target_rate 0\.1 needs at least 29 clean requests/.test(e.message) &&
      e.at?.line === 6 &&
      /set probe\.requests to 29 or more/.test(e.hint ?? ''),
  );
  // left out, requests default to what the target needs
  const defaults = plan('  window: 128\n');
  assert.equal(parseProbeOptions(defaults.probe, 'plan.yaml', defaults.probeAt).requests, 29);
  const loose = plan('  window: 128\n  target_rate: 0.25\n');
  assert.equal(parseProbeOptions(loose.probe, 'plan.yaml', loose.probeAt).requests, 11);
  // exactly enough is accepted
  const enough = plan('  window: 128\n  requests: 9\n  target_rate: 0.3\n');
  assert.equal(parseProbeOptions(enough.probe, 'plan.yaml', enough.probeAt).requests, 9);
});
