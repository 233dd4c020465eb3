import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from '../core/errors.js';
import { buildAttribution, type AttributionReport } from './attribution.js';
import { RunInterrupted } from './cells.js';
import { createFakeWorld, type FakeWorldOptions } from './fake-executor.js';
import { Journal } from './journal.js';
import { loadPlanFile } from './plan-load.js';
import { runMatrix } from './run.js';

const fixture = fileURLToPath(new URL('../../test/fixtures/matrix/seed-like.yaml', import.meta.url));
const plan = loadPlanFile(fixture);
// The canonical kernel defect: FP8 KV × spec-as-decode with q_len_per_req = k+1 > 4 × Q quantization disabled.
const kernelDefect = { fp8_kv: 'on', spec_k: '7', q_quant: 'disabled' };
// The scale-bookkeeping defect: FP8 KV × Q quantization disabled, with or without speculation.
const scaleDefect = { fp8_kv: 'on', q_quant: 'disabled' };

/** The same plan with `coverage.after_found: cover`: the covering rounds run after an interaction is found. */
const coverAll = { ...plan, coverage: { ...plan.coverage, afterFound: 'cover' as const } };

async function simulate(world: FakeWorldOptions, extra: { slots?: number; plan?: typeof plan } = {}) {
  const fake = createFakeWorld({ ...world, slots: extra.slots ?? world.slots });
  const run = await runMatrix({ plan: extra.plan ?? plan, executor: fake.executor, probe: fake.probe, shrinkSteps: 3000 });
  return { fake, run, report: buildAttribution(run) };
}

function stripVolatile(r: AttributionReport) {
  return {
    ...r,
    launches: { ...r.launches, thisRun: 0, reusedFromJournal: 0 },
  };
}

test('the seed-shaped defect: exact interaction, four verified remedies, eager not involved, ≤ 30 launches', async () => {
  const { fake, report } = await simulate({ faults: [kernelDefect] });
  assert.equal(report.verdict, 'corruption-found');
  assert.equal(report.interactions.length, 1);
  const [it] = report.interactions;
  assert.equal(it.status, 'verified');
  assert.deepEqual(it.interaction, kernelDefect);
  assert.deepEqual(Object.keys(it.forced), ['spec']); // k = 7 needs some drafter on
  const changed = it.remedies.map((r) => Object.keys(r.change).join('+')).sort();
  assert.deepEqual(changed, ['fp8_kv', 'q_quant', 'spec+spec_k', 'spec_k']);
  assert.ok(report.notInvolved.some((n) => n.factor === 'eager' && n.corruptWith.length === 2));
  assert.ok(report.launches.used <= 30, `used ${report.launches.used}`);
  assert.equal(report.launches.used, fake.launches);
  assert.equal(report.launches.exhaustive, 320);
  assert.equal(fake.live, 0, 'every server was stopped');
});

test('the scale defect in the same space is found as the 2-way interaction it is', async () => {
  const { report } = await simulate({ faults: [scaleDefect] });
  assert.deepEqual(report.interactions.map((i) => i.interaction), [scaleDefect]);
  assert.deepEqual(report.interactions[0].forced, {});
  assert.ok(report.notInvolved.some((n) => n.factor === 'spec'));
});

test('both defects at once: with after_found cover, two interactions, each verified', async () => {
  const { report } = await simulate({ faults: [kernelDefect, { fp8_kv: 'on', block_size: '32', eager: 'on' }] }, { plan: coverAll });
  const found = report.interactions.filter((i) => i.status === 'verified').map((i) => i.interaction);
  assert.equal(found.length, 2, JSON.stringify(report.interactions));
  assert.ok(found.some((i) => JSON.stringify(i) === JSON.stringify(kernelDefect)));
  assert.ok(found.some((i) => JSON.stringify(i) === JSON.stringify({ fp8_kv: 'on', eager: 'on', block_size: '32' })));
});

test('a clean stack: every cell passes, full coverage, verdict clean', async () => {
  const { report, fake } = await simulate({ faults: [] });
  assert.equal(report.verdict, 'clean');
  assert.ok(report.cells.every((c) => c.outcome === 'pass' && c.probeRounds === 3));
  assert.equal(report.coverage.uncoveredByVerdicts, 0);
  assert.equal(fake.live, 0);
});

test('a level that cannot launch is launch-failed — never pass or corrupt — and is named', async () => {
  const { report } = await simulate({ faults: [], launchFailures: [{ block_size: '32' }] });
  const withBad = report.cells.filter((c) => c.levels.block_size === '32');
  assert.ok(withBad.length > 0);
  assert.ok(withBad.every((c) => c.outcome === 'launch-failed' && c.probeRounds === 0));
  assert.deepEqual(report.launchFailures.map((l) => l.levels), [{ block_size: '32' }]);
  assert.equal(report.verdict, 'inconclusive'); // block_size=32 combinations were never judged
  assert.deepEqual(report.learnedConstraints?.map((l) => l.levels), [{ block_size: '32' }]);
  assert.ok((report.coverage.untestable?.count ?? 0) > 0, 'the combinations with block_size=32 are untestable, and said so');
  assert.equal(report.coverage.uncoveredByVerdicts, 0, 'every other combination was tested by a launch that came up');
});

test('probe errors and timeouts stay distinct outcomes', async () => {
  const { report } = await simulate({ faults: [], probeErrors: [{ prefix_cache: 'on', eager: 'on' }], launchTimeouts: [{ batch_invariant: 'on', block_size: '32' }] });
  const outcomes = new Set(report.cells.map((c) => c.outcome));
  assert.ok(outcomes.has('probe-error') && outcomes.has('timeout') && outcomes.has('pass'));
  for (const c of report.cells) {
    if (c.levels.prefix_cache === 'on' && c.levels.eager === 'on' && !(c.levels.batch_invariant === 'on' && c.levels.block_size === '32'))
      assert.equal(c.outcome, 'probe-error');
  }
});

test('missed corruption (30% of probes of a corrupt server say PASS) is caught by confirmation', async () => {
  const { report } = await simulate({ faults: [kernelDefect], missRate: 0.3, seed: 5 });
  assert.deepEqual(report.interactions.filter((i) => i.status === 'verified').map((i) => i.interaction), [kernelDefect]);
});

test('parallel slots: leave-one-out, same answer', async () => {
  const { report, fake } = await simulate({ faults: [kernelDefect] }, { slots: 8 });
  assert.equal(report.interactions[0].method, 'leave-one-out');
  assert.deepEqual(report.interactions[0].interaction, kernelDefect);
  assert.equal(fake.live, 0);
});

test('interrupt, then resume: same report, no configuration launched twice', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-matrix-'));
  try {
    const header = { type: 'run' as const, version: 1, planFile: fixture, planHash: plan.hash, faultline: 'test', startedAt: 'now' };
    const first = createFakeWorld({ faults: [kernelDefect] });
    const controller = new AbortController();
    let cells = 0;
    const journal = Journal.create(dir, header);
    await assert.rejects(
      runMatrix({
        plan, executor: first.executor, probe: first.probe, journal, signal: controller.signal, shrinkSteps: 3000,
        onEvent: (e) => {
          if (e.type === 'cell' && ++cells === 9) controller.abort();
        },
      }),
      RunInterrupted,
    );
    journal.close();
    assert.equal(first.live, 0);

    const { journal: again, records } = Journal.resume(dir);
    const second = createFakeWorld({ faults: [kernelDefect] });
    const resumed = await runMatrix({ plan, executor: second.executor, probe: second.probe, journal: again, resumed: records, shrinkSteps: 3000 });
    again.close();
    const reference = await simulate({ faults: [kernelDefect] });
    assert.deepEqual(stripVolatile(buildAttribution(resumed)), stripVolatile(reference.report));

    const journalLines = readFileSync(join(dir, 'journal.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const cellKeys = journalLines.filter((r) => r.type === 'cell').map((r) => `${r.cell.config.join('.')}${r.cell.recheckOf ? '#recheck' : ''}`);
    assert.equal(new Set(cellKeys).size, cellKeys.length, 'a cell was run twice');
    assert.equal(first.launches - 1 + second.launches, reference.run.launches.total - 1, 'the resumed run launched only what was missing');
    assert.equal(journalLines.filter((r) => r.type === 'reference').length, 1, 'the reference was not relaunched');
    assert.equal(resumed.launches.reused, 9);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a reference that does not start is a user error, not an empty report', async () => {
  await assert.rejects(
    simulate({ faults: [], launchFailures: [{ fp8_kv: 'off', spec: 'off', eager: 'off', prefix_cache: 'off' }] }),
    (e: unknown) => e instanceof UserError && e.code === 'E_MATRIX_REFERENCE',
  );
});

test('reference.keep_alive: the reference stays up in a slot of its own and scores every cell; relaunched on resume', async () => {
  const keptPlan = { ...plan, reference: { kind: 'launch' as const, keepAlive: true } };
  const dir = mkdtempSync(join(tmpdir(), 'faultline-matrix-'));
  try {
    const header = { type: 'run' as const, version: 1, planFile: fixture, planHash: plan.hash, faultline: 'test', startedAt: 'now' };
    const first = createFakeWorld({ faults: [kernelDefect], slots: 2 });
    const controller = new AbortController();
    let cells = 0;
    const journal = Journal.create(dir, header);
    await assert.rejects(
      runMatrix({
        plan: keptPlan, executor: first.executor, probe: first.probe, journal, signal: controller.signal, shrinkSteps: 3000,
        onEvent: (e) => {
          if (e.type === 'cell' && ++cells === 5) controller.abort();
        },
      }),
      RunInterrupted,
    );
    journal.close();
    assert.equal(first.live, 0, 'the kept reference is stopped on interrupt too');
    assert.equal(first.launchSlots[0], 2, 'the reference takes the slot after the cells’ two');
    assert.ok(first.probes.length > 0 && first.probes.every((p) => p.scorer?.live === true && p.scorer.url === 'fake://server-0'));

    const { journal: again, records } = Journal.resume(dir);
    const second = createFakeWorld({ faults: [kernelDefect], slots: 2 });
    const run = await runMatrix({ plan: keptPlan, executor: second.executor, probe: second.probe, journal: again, resumed: records, shrinkSteps: 3000 });
    again.close();
    assert.equal(run.referenceLaunches, 1, 'scoring needs the reference live again');
    assert.ok(second.probes.every((p) => p.scorer?.live === true));
    assert.equal(second.live, 0);
    assert.deepEqual(buildAttribution(run).interactions[0].interaction, kernelDefect);
    const journalLines = readFileSync(join(dir, 'journal.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(journalLines.filter((r) => r.type === 'reference').length, 1, 'recorded once, not re-recorded');

    // replaying the finished run launches nothing, the reference included
    const { journal: third, records: all } = Journal.resume(dir);
    const replay = createFakeWorld({ faults: [kernelDefect], slots: 2 });
    const replayed = await runMatrix({ plan: keptPlan, executor: replay.executor, probe: replay.probe, journal: third, resumed: all, shrinkSteps: 3000 });
    third.close();
    assert.equal(replay.launches, 0);
    assert.equal(replayed.referenceLaunches, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('without keep_alive no cell is offered a scorer', async () => {
  const { fake } = await simulate({ faults: [kernelDefect] });
  assert.ok(fake.probes.every((p) => p.scorer === undefined));
});
