import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildAttribution, type AttributionReport } from '../../matrix/attribution.js';
import { RunInterrupted } from '../../matrix/cells.js';
import { createFakeWorld } from '../../matrix/fake-executor.js';
import { Journal } from '../../matrix/journal.js';
import { loadPlanFile } from '../../matrix/plan-load.js';
import { runMatrix } from '../../matrix/run.js';
import { loadInput } from './load.js';
import { ATTRIBUTION_FILE, readMatrixRunDir } from './matrix-run.js';

const planFixture = fileURLToPath(new URL('../../../test/fixtures/matrix/seed-like.yaml', import.meta.url));
const kernelDefect = { fp8_kv: 'on', spec_k: '7', q_quant: 'disabled' };

/** A run of the seed-shaped plan on the fake world, journaled in DIR/run (plan copied to DIR/plan.yaml). */
async function journaledRun(dir: string, stopAfterCells?: number) {
  copyFileSync(planFixture, join(dir, 'plan.yaml'));
  const plan = loadPlanFile(join(dir, 'plan.yaml'));
  const journal = Journal.create(join(dir, 'run'), { type: 'run', version: 1, planFile: 'plan.yaml', planHash: plan.hash, faultline: 'test', startedAt: 'now' });
  const world = createFakeWorld({ faults: [kernelDefect] });
  const controller = new AbortController();
  let cells = 0;
  try {
    const run = await runMatrix({
      plan,
      executor: world.executor,
      probe: world.probe,
      journal,
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === 'cell' && ++cells === stopAfterCells) controller.abort();
      },
    });
    return buildAttribution(run);
  } catch (e) {
    if (e instanceof RunInterrupted) return undefined;
    throw e;
  } finally {
    journal.close();
  }
}

const withoutCounters = (r: AttributionReport) => ({ ...r, launches: { ...r.launches, thisRun: 0, reusedFromJournal: 0 } });

test('a finished run directory is replayed from its journal: the same attribution, nothing launched', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-report-run-'));
  try {
    const original = await journaledRun(dir);
    assert.ok(original);
    const read = await readMatrixRunDir(join(dir, 'run'), dir);
    assert.equal(read.complete, true);
    assert.deepEqual(read.notes, []);
    assert.equal(read.report.plan.file, 'plan.yaml', 'the plan as the journal names it');
    assert.deepEqual(withoutCounters(read.report), withoutCounters({ ...original, plan: { ...original.plan, file: 'plan.yaml' } }));
    assert.equal(read.report.launches.thisRun, 0, 'the replay launched nothing');
    assert.deepEqual(read.report.interactions[0].interaction, kernelDefect);

    const loaded = await loadInput('run', dir);
    assert.equal(loaded.kind, 'matrix');
    if (loaded.kind !== 'matrix') return;
    assert.deepEqual(loaded.data.localizationSteps.map((c) => c.phase), loaded.data.cells.filter((c) => c.phase === 'localize' || c.phase === 'verify').map((c) => c.phase));
    assert.ok(loaded.data.localizationSteps.length > 0);
    // the journal file itself stands for its directory
    assert.equal((await loadInput('run/journal.jsonl', dir)).kind, 'matrix');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an interrupted run: its launches and outcomes, marked incomplete, with how to resume', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-report-run-'));
  try {
    assert.equal(await journaledRun(dir, 9), undefined);
    const read = await readMatrixRunDir(join(dir, 'run'), dir);
    assert.equal(read.complete, false);
    assert.equal(read.report.cells.length, 9);
    assert.equal(read.report.verdict, 'inconclusive');
    assert.deepEqual(read.report.interactions, []);
    assert.match(read.notes.join('\n'), /--resume/);
    assert.equal(read.report.factors[0].reference, 'off', 'reference levels from the plan');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a plan that changed or vanished: journal only, said so; attribution.json when the run left one', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-report-run-'));
  try {
    const original = await journaledRun(dir);
    writeFileSync(join(dir, 'plan.yaml'), '# edited after the run\n' + (await import('node:fs')).readFileSync(planFixture, 'utf8'));
    const changed = await readMatrixRunDir(join(dir, 'run'), dir);
    assert.equal(changed.complete, false);
    assert.match(changed.notes[0], /changed since the run/);
    assert.equal(changed.report.cells.length, original!.cells.length);

    rmSync(join(dir, 'plan.yaml'));
    const gone = await readMatrixRunDir(join(dir, 'run'), dir);
    assert.match(gone.notes[0], /was not found/);
    assert.equal(gone.report.factors[0].reference, '', 'no plan: reference levels unknown');

    writeFileSync(join(dir, 'run', ATTRIBUTION_FILE), JSON.stringify(original));
    const stored = await readMatrixRunDir(join(dir, 'run'), dir);
    assert.equal(stored.complete, true);
    assert.deepEqual(stored.report, JSON.parse(JSON.stringify(original)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
