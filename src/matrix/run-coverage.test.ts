/**
 * Masking-aware coverage and level generalization, end to end through runMatrix: a level that
 * never launches becomes a learned constraint and every other valid combination still gets a
 * verdict (fake executor, and real processes: the stand-in server exiting at start); maskers
 * (declared and learned) do not count as testing what they may hide; an interaction's factor
 * is reported with every level that fails and every safe one.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildAttribution, type AttributionReport } from './attribution.js';
import type { MatrixProbe } from './cell-probe.js';
import { ConstraintSet } from './constraints.js';
import { checkCoverage } from './covering-check.js';
import { createFakeWorld, type FakeWorldOptions } from './fake-executor.js';
import { createLocalExecutor } from './local-executor.js';
import { parsePlan } from './plan-load.js';
import { runMatrix } from './run.js';
import { configFromLevels, type Config } from './space.js';

const standIn = fileURLToPath(new URL('../../test/fixtures/matrix/stand-in-server.mjs', import.meta.url));

/** Nine factors, one of them the tensor-parallel size whose level 2 cannot launch on this node. */
function ninePlan(extra = '', argv = '[srv, --port, "{port}"]', tp2 = '{ argv: [--tp, "2"] }'): ReturnType<typeof parsePlan> {
  const binary = ['fp8_kv', 'spec', 'q_quant', 'eager', 'prefix', 'chunked', 'graphs', 'batch_inv']
    .map((f) => `  ${f}: { levels: { "off": {}, "on": { argv: [--${f.replace('_', '-')}] } } }`)
    .join('\n');
  return parsePlan(
    'nine.yaml',
    `launch: { argv: ${argv}, ready_timeout_s: 20, stop_timeout_s: 5 }\nfactors:\n${binary}\n  tp: { levels: { "1": {}, "2": ${tp2} } }\nstrength: 3\nconfirm: 0\n${extra}`,
  );
}

/** The valid 3-way combinations without tp=2 that no conclusive launch holds (an independent check). */
function untestedWithoutTp2(report: AttributionReport, plan: ReturnType<typeof parsePlan>): number {
  const conclusive: Config[] = [
    plan.baseline,
    ...report.cells.filter((c) => c.outcome === 'pass' || c.outcome === 'corrupt').map((c) => configFromLevels(plan.space, c.levels)),
  ];
  const tp = plan.space.names.indexOf('tp');
  const check = checkCoverage(plan.space, new ConstraintSet(plan.space, []), 3, conclusive, { needed: (p) => p[tp] !== 1 });
  return check.holeCount;
}

async function fakeRun(plan: ReturnType<typeof parsePlan>, world: FakeWorldOptions) {
  const fake = createFakeWorld(world);
  const run = await runMatrix({ plan, executor: fake.executor, probe: fake.probe, shrinkSteps: 3000 });
  return { fake, report: buildAttribution(run) };
}

test('fake executor: a level that never launches is learned, and every valid 3-way combination without it ends with a verdict', async () => {
  const plan = ninePlan();
  const { report, fake } = await fakeRun(plan, { faults: [], launchFailures: [{ tp: '2' }] });
  assert.deepEqual(report.learnedConstraints?.map((l) => l.levels), [{ tp: '2' }]);
  assert.equal(untestedWithoutTp2(report, plan), 0);
  assert.equal(report.coverage.uncoveredByVerdicts, 0);
  // C(8,2) pairs of other factors × 4 level pairs: every combination holding tp=2 is untestable, and said so
  assert.equal(report.coverage.untestable?.count, 28 * 4);
  assert.match(report.coverage.untestable?.byCause[0].cause ?? '', /tp=2 never launched/);
  assert.equal(report.verdict, 'inconclusive', 'combinations with tp=2 were never judged: not clean');
  assert.equal(fake.live, 0);
});

test('fake executor: the same with a fault and after_found cover — the interaction is found and the rest still covered', async () => {
  const plan = ninePlan('coverage: { after_found: cover }\n');
  const { report } = await fakeRun(plan, { faults: [{ fp8_kv: 'on', spec: 'on', q_quant: 'on' }], launchFailures: [{ tp: '2' }] });
  assert.deepEqual(report.interactions.filter((i) => i.status === 'verified').map((i) => i.interaction), [{ fp8_kv: 'on', spec: 'on', q_quant: 'on' }]);
  assert.equal(untestedWithoutTp2(report, plan), 0);
  assert.equal(report.coverage.uncoveredByVerdicts, 0);
});

test('real processes: the stand-in server exits at start for tp=2; every valid combination without it ends with a verdict', { timeout: 240_000 }, async () => {
  const plan = ninePlan('', `[${JSON.stringify(process.execPath)}, ${JSON.stringify(standIn)}, --port, "{port}"]`, '{ argv: [--exit-at-start, "2"] }');
  const runDir = mkdtempSync(join(tmpdir(), 'fl-matrix-masking-'));
  try {
    const executor = createLocalExecutor({ runDir, slots: 2, cwd: runDir, health: '/health', readyTimeoutMs: 20_000, stopTimeoutMs: 5_000, baseEnv: process.env });
    // the stand-in serves no completions: every server that came up is a clean stack
    const probe: MatrixProbe = { captureReference: async () => ({}), probeCell: async () => ({ outcome: 'pass', corruptRate: 0, requests: 1 }) };
    const report = buildAttribution(await runMatrix({ plan, executor, probe, shrinkSteps: 3000 }));
    const failed = report.cells.filter((c) => c.outcome === 'launch-failed');
    assert.ok(failed.length > 0 && failed.every((c) => c.levels.tp === '2'), 'only tp=2 launches failed');
    assert.ok(report.cells.filter((c) => c.levels.tp === '2').every((c) => c.outcome === 'launch-failed'));
    assert.deepEqual(report.learnedConstraints?.map((l) => l.levels), [{ tp: '2' }]);
    assert.equal(untestedWithoutTp2(report, plan), 0);
    assert.equal(report.coverage.uncoveredByVerdicts, 0);
  } finally {
    rmSync(runDir, { recursive: true, force: true });
  }
});

test('a declared masker: the most-enabled launch keeps it off, and PASSes with it test only the combinations holding it', async () => {
  const fault = { fp8_kv: 'on', spec: 'on', q_quant: 'on' };
  // graphs=on hides the fault: a most-enabled launch with it would pass for the wrong reason
  const stop = await fakeRun(ninePlan('coverage: { maskers: [{ graphs: "on" }] }\n'), { faults: [fault], maskers: [{ graphs: 'on' }] });
  const maximal = stop.report.cells.filter((c) => c.phase === 'maximal');
  assert.ok(maximal.length > 0 && maximal.every((c) => c.levels.graphs === 'off' && c.outcome === 'corrupt'));
  assert.deepEqual(stop.report.interactions.filter((i) => i.status === 'verified').map((i) => i.interaction), [fault]);

  const plan = ninePlan('coverage: { after_found: cover, maskers: [{ graphs: "on" }] }\n');
  const { report } = await fakeRun(plan, { faults: [fault], maskers: [{ graphs: 'on' }] });
  assert.equal(report.coverage.uncoveredByVerdicts, 0);
  // independently: every valid combination without graphs=on (and not holding the fault, which is
  // known to fail) is held by a launch with a verdict and without the masker
  assert.equal(unmaskedHoles(plan, report, 'graphs', 'on', fault), 0);
});

test('a learned masker: a level in every PASS that holds the interaction and in no FAIL is named', async () => {
  // the seed case's shape with the drafter as a suspect: ngram prompt lookup hides the fault
  const plan = parsePlan(
    'drafter.yaml',
    `launch: { argv: [srv, --port, "{port}"] }
factors:
  fp8_kv: { levels: { "off": {}, "on": { argv: [--fp8] } } }
  spec: { levels: { "off": {}, "on": { argv: [--spec] } } }
  q_quant: { levels: { "off": {}, "on": { argv: [--q] } } }
  drafter: { levels: { none: {}, mtp: { argv: [--mtp] }, ngram: { argv: [--ngram] } } }
  eager: { levels: { "off": {}, "on": { argv: [--eager] } } }
  prefix: { levels: { "off": {}, "on": { argv: [--prefix] } } }
strength: 3
confirm: 0
coverage: { after_found: cover }
`,
  );
  const fault = { fp8_kv: 'on', spec: 'on', q_quant: 'on' };
  const { report } = await fakeRun(plan, { faults: [fault], maskers: [{ drafter: 'ngram' }] });
  assert.deepEqual(report.interactions.filter((i) => i.status === 'verified').map((i) => i.interaction), [fault]);
  assert.deepEqual(report.maskers?.learned, [{ drafter: 'ngram' }]);
  // the masked PASS holding the interaction ran, did not count, and coverage is complete without it
  assert.ok(report.cells.some((c) => c.outcome === 'pass' && c.levels.drafter === 'ngram' && c.levels.fp8_kv === 'on' && c.levels.spec === 'on' && c.levels.q_quant === 'on'));
  assert.equal(report.coverage.uncoveredByVerdicts, 0);
  assert.equal(unmaskedHoles(plan, report, 'drafter', 'ngram', fault), 0);
});

/** Valid 3-way combinations without the masker level (and not holding the fault, known to fail) that no unmasked launch with a verdict holds. */
function unmaskedHoles(plan: ReturnType<typeof parsePlan>, report: AttributionReport, factor: string, level: string, fault: Record<string, string>): number {
  const f = plan.space.names.indexOf(factor);
  const v = plan.space.levels[f].indexOf(level);
  const holdsFault = (p: Config) => Object.entries(fault).every(([g, l]) => p[plan.space.names.indexOf(g)] === plan.space.levels[plan.space.names.indexOf(g)].indexOf(l));
  const unmasked = [
    plan.baseline,
    ...report.cells.filter((c) => (c.outcome === 'pass' || c.outcome === 'corrupt') && c.levels[factor] !== level).map((c) => configFromLevels(plan.space, c.levels)),
  ];
  return checkCoverage(plan.space, new ConstraintSet(plan.space, []), 3, unmasked, { needed: (p) => p[f] !== v && !holdsFault(p) }).holeCount;
}

test('level generalization: both FP8 levels fail the same way and are reported as a set; the only safe level is the remedy', async () => {
  const plan = parsePlan(
    'kv.yaml',
    `launch: { argv: [srv, --port, "{port}"] }
factors:
  kv_cache: { levels: { bf16: {}, fp8_e4m3: { argv: [--kv, e4m3] }, fp8_e5m2: { argv: [--kv, e5m2] } } }
  speculative: { levels: { "off": {}, k3: { argv: [--k, "3"] }, k7: { argv: [--k, "7"] } } }
  q_quantization: { levels: { enabled: {}, disabled: { argv: [--no-q-quant] } } }
  eager: { levels: { "off": {}, "on": { argv: [--eager] } } }
strength: 3
confirm: 0
`,
  );
  const faults = [
    { kv_cache: 'fp8_e4m3', speculative: 'k7', q_quantization: 'disabled' },
    { kv_cache: 'fp8_e5m2', speculative: 'k7', q_quantization: 'disabled' },
  ];
  const { report } = await fakeRun(plan, { faults });
  const [it] = report.interactions.filter((i) => i.status === 'verified');
  assert.deepEqual(it.levels?.kv_cache.failing.sort(), ['fp8_e4m3', 'fp8_e5m2']);
  assert.deepEqual(it.levels?.kv_cache.safe, ['bf16']);
  assert.deepEqual(it.levels?.speculative.failing, ['k7']);
  assert.deepEqual(it.levels?.speculative.safe, ['off', 'k3']);
  const kvRemedies = it.remedies.filter((r) => 'kv_cache' in r.change).map((r) => r.change.kv_cache);
  assert.deepEqual(kvRemedies, ['bf16'], 'the other FP8 level is no remedy');
  assert.deepEqual(it.remedies.filter((r) => 'speculative' in r.change).map((r) => r.change.speculative).sort(), ['k3', 'off']);

  // with one FP8 level only, the set is that level
  const single = await fakeRun(plan, { faults: [faults[0]] });
  const [one] = single.report.interactions;
  assert.deepEqual(one.levels?.kv_cache, { failing: ['fp8_e4m3'], safe: ['bf16', 'fp8_e5m2'], impossible: [], unknown: [] });
});
