/**
 * Request-scope factors: a request parameter (a sampling penalty) varied over the probe requests
 * of one launch. An interaction between a launch flag and it is found, and no request level costs
 * a launch: cells that differ only in request fields share one server.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UserError } from '../core/errors.js';
import { buildAttribution } from './attribution.js';
import { createFakeWorld } from './fake-executor.js';
import { launchKeyOf } from './launch-spec.js';
import { parsePlan } from './plan-load.js';
import { runMatrix } from './run.js';
import { configFromLevels } from './space.js';

const planText = (penaltyScope: 'request' | 'launch', extra = '') => `launch: { argv: [srv, --port, "{port}"] }
factors:
  speculative: { levels: { "off": {}, mtp: { argv: [--speculative-config.method=mtp] } } }
  kv_cache: { levels: { bf16: {}, fp8: { argv: [--kv-cache-dtype, fp8] } } }
  eager: { levels: { "off": {}, "on": { argv: [--enforce-eager] } } }
  prefix: { levels: { "off": {}, "on": { argv: [--enable-prefix-caching] } } }
  penalty:
    scope: ${penaltyScope}
    levels:
      none:
      ${penaltyScope === 'request' ? 'repetition: { request: { repetition_penalty: 1.3 } }' : 'repetition: { argv: [--fake-penalty] }'}
strength: 3
confirm: 0
${extra}`;

// FL013's shape: speculative decoding drops the penalty
const fault = { speculative: 'mtp', penalty: 'repetition' };

test('a launch flag × a request parameter is found, and request levels share launches', async () => {
  const plan = parsePlan('requests.yaml', planText('request'));
  const world = createFakeWorld({ faults: [fault] });
  const run = await runMatrix({ plan, executor: world.executor, probe: world.probe, shrinkSteps: 2000 });
  const report = buildAttribution(run);
  assert.deepEqual(report.interactions.filter((i) => i.status === 'verified').map((i) => i.interaction), [fault]);
  assert.equal(report.launches.used, world.launches, 'launches counted are the executor’s launches');
  // no launch per request level: every launch configuration of the cells was launched once (one
  // slot); the reference's arguments may come up a second time, for cells at them (it is not kept)
  const keys = world.launchLog.slice(1).map((levels) => launchKeyOf(plan, configFromLevels(plan.space, levels)));
  assert.equal(new Set(keys).size, keys.length, 'a launch configuration was launched twice');
  // and every cell's sibling at the other penalty level ran on the same server
  for (const c of report.cells) {
    const other = report.cells.find((d) => d.id !== c.id && Object.entries(d.levels).every(([f, l]) => f === 'penalty' ? l !== c.levels.penalty : l === c.levels[f]));
    assert.ok(other, `${c.id} has its other request level probed too`);
  }
  const cells = report.cells.length;
  assert.ok(world.launches < cells + 1, `${world.launches} launches for ${cells} cells`);
  assert.ok(report.cells.some((c) => c.levels.penalty === 'repetition') && report.cells.some((c) => c.levels.penalty === 'none'));
  // the probe got the request fields of its cell
  assert.equal(world.live, 0);
});

test('the same factor as a launch flag costs launches: the request scope uses fewer', async () => {
  const withRequest = createFakeWorld({ faults: [fault] });
  await runMatrix({ plan: parsePlan('r.yaml', planText('request', 'coverage: { after_found: cover }\n')), executor: withRequest.executor, probe: withRequest.probe, shrinkSteps: 2000 });
  const asLaunch = createFakeWorld({ faults: [fault] });
  await runMatrix({ plan: parsePlan('l.yaml', planText('launch', 'coverage: { after_found: cover }\n')), executor: asLaunch.executor, probe: asLaunch.probe, shrinkSteps: 2000 });
  assert.ok(withRequest.launches < asLaunch.launches, `request scope ${withRequest.launches} launches, launch scope ${asLaunch.launches}`);
});

test('plan errors: a request-scope level that changes the launch, a launch-scope level with request fields, a constraint across scopes', () => {
  const bad = (text: string, pattern: RegExp) =>
    assert.throws(() => parsePlan('bad.yaml', text), (e: unknown) => e instanceof UserError && pattern.test(e.message) && e.at !== undefined);
  bad(planText('request').replace('repetition: { request: { repetition_penalty: 1.3 } }', 'repetition: { argv: [--x] }'), /scope: request, but its level "repetition" changes the launch/);
  bad(planText('launch').replace('repetition: { argv: [--fake-penalty] }', 'repetition: { request: { repetition_penalty: 1.3 } }'), /sets request fields, but the factor has scope: launch/);
  bad(`${planText('request')}constraints:\n  - forbid: { speculative: mtp, penalty: repetition }\n`, /ties a launch-scope factor to a request-scope one/);
});

test('the dry run counts one launch for rows that differ only in request levels', async () => {
  const { dryRunJson } = await import('../cli/commands/matrix-dry-run.js');
  const plan = parsePlan('requests.yaml', planText('request'));
  const d = JSON.parse(dryRunJson(plan, 1)) as { maximal: unknown[]; covering: { levels: Record<string, string> }[]; launchesBeforeLocalization: number };
  const rows = [...d.maximal, ...d.covering] as { levels: Record<string, string> }[];
  const launches = new Set(rows.map((r) => JSON.stringify(Object.entries(r.levels).filter(([f]) => f !== 'penalty'))));
  assert.ok(launches.size < rows.length, 'some rows differ only in the penalty');
  assert.equal(d.launchesBeforeLocalization, 1 + launches.size);
});
