/**
 * The workload suite in a matrix plan: the plan's probe options (suite lists, the live reference
 * it needs), a cell's verdict from its suites, and the workload features of corrupt cells carried
 * into the journal's cells, the text and JSON reports and the HTML page.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from '../core/errors.js';
import type { WorkloadReport } from '../probe/workload/report.js';
import { buildReportData } from '../report/build.js';
import { renderReportHtml } from '../report/html.js';
import { buildAttribution } from './attribution.js';
import type { MatrixProbe } from './cell-probe.js';
import { createFakeWorld } from './fake-executor.js';
import { formatAttributionJson, formatAttributionText } from './format-text.js';
import { loadPlanFile, parsePlan } from './plan-load.js';
import { parseProbeOptions } from './probe-cell.js';
import { combineSuiteResults, workloadVerdict } from './probe-cell-workload.js';
import { runMatrix } from './run.js';

const plan = (probe: string, reference = '') =>
  parsePlan('plan.yaml', `launch: { argv: [srv, --port, "{port}"] }\n${reference}factors:\n  a: { levels: { "off": {}, "on": { argv: [--a] } } }\nprobe:\n${probe}`);
const KEPT = 'reference: { keep_alive: true }\n';
const options = (probe: string, reference = KEPT, requestScope = false) => {
  const p = plan(probe, reference);
  return parseProbeOptions(p.probe, 'plan.yaml', p.probeAt, { liveReference: p.reference.kind === 'url' || p.reference.keepAlive, requestScope });
};
const refused = (f: () => unknown, pattern: RegExp, line?: number) =>
  assert.throws(f, (e: unknown) => e instanceof UserError && pattern.test(`${e.message} ${e.hint}`) && (line === undefined || e.at?.line === line));

test('plan: probe.suite takes workload, a comma list or a YAML list; the workload suite needs a live reference', () => {
  assert.deepEqual(options('  suite: workload\n').suites, ['workload'], 'no window needed for the workload suite alone');
  assert.equal(options('  suite: workload\n').workload_rounds, 8);
  assert.deepEqual(options('  suite: workload,window-crossing\n  window: 128\n  workload_rounds: 3\n').suites, ['workload', 'window-crossing']);
  assert.deepEqual(options('  suite: [short, workload]\n  window: 128\n').suites, ['short', 'workload']);
  assert.deepEqual(options('  suite: workload\n', 'reference: { url: "http://127.0.0.1:9" }\n').suites, ['workload']);
  refused(() => options('  suite: workload\n', ''), /recorded, then stopped.*keep_alive: true/, 5);
  refused(() => options('  suite: workload\n', KEPT, true), /request-scope/);
  refused(() => options('  suite: workload,window-crossing\n'), /probe\.window is missing/);
  refused(() => options('  suite: workload,workload\n'), /named twice/, 6);
  refused(() => options('  suite: [window-crossing, short]\n  window: 128\n'), /both prompt suites/);
  refused(() => options('  suite: workloads\n'), /unknown suite "workloads"/);
  refused(() => options('  suite: file\n  window: 128\n'), /file suite is not available/);
  refused(() => options('  suite: workload\n  workload_rounds: 0\n'), /probe\.workload_rounds/);
});

test('a cell from its suites: corrupt if any is, pass only if every suite ran and passed', () => {
  const pass = { outcome: 'pass' as const, requests: 30, corruptRate: 0, detail: 'clean' };
  const corrupt = { outcome: 'corrupt' as const, requests: 12, corruptRate: 0.25, features: ['after-eviction'], detail: '3 of 12' };
  const error = { outcome: 'probe-error' as const, requests: 10, detail: 'workload probe inconclusive: 1 request(s) of the trace failed or were cut off' };
  const both = ['workload', 'window-crossing'] as const;
  assert.deepEqual(combineSuiteResults([{ suite: 'workload', result: corrupt }], ['workload']), corrupt, 'one suite: its own result');
  const found = combineSuiteResults([{ suite: 'workload', result: corrupt }], both);
  assert.equal(found.outcome, 'corrupt');
  assert.equal(found.corruptRate, 0.25);
  assert.deepEqual(found.features, ['after-eviction']);
  assert.match(found.detail!, /window-crossing: not run \(workload already found corruption\)/);
  assert.equal(combineSuiteResults([{ suite: 'window-crossing', result: pass }, { suite: 'workload', result: corrupt }], ['window-crossing', 'workload']).outcome, 'corrupt');
  assert.equal(combineSuiteResults([{ suite: 'workload', result: pass }, { suite: 'window-crossing', result: pass }], both).outcome, 'pass');
  const mixed = combineSuiteResults([{ suite: 'workload', result: error }, { suite: 'window-crossing', result: pass }], both);
  assert.equal(mixed.outcome, 'probe-error', 'a clean window probe does not make up for a workload probe that could not decide');
  assert.match(mixed.detail!, /workload: probe-error \(workload probe inconclusive/);
  assert.equal(combineSuiteResults([{ suite: 'workload', result: pass }, { suite: 'window-crossing', result: { outcome: 'timeout' } }], both).outcome, 'timeout');
  assert.equal(combineSuiteResults([{ suite: 'workload', result: pass }], both).outcome, 'probe-error', 'a suite that never ran (interrupted) is no pass');
});

test('workload report → cell verdict: CORRUPT names the shared features and requests, INCONCLUSIVE is never a pass', () => {
  const report = (verdict: WorkloadReport['verdict'], corrupt: number): WorkloadReport =>
    ({
      verdict,
      reason: `${corrupt} of 20 judged requests corrupt`,
      counts: { judged: 20, corrupt },
      sharedByCorrupt: corrupt ? ['after-eviction', 'prefix-hit'] : [],
      requests: Array.from({ length: corrupt }, (_, i) => ({ id: `r${i}-evict-again-0`, outcome: 'corrupt' })),
    }) as unknown as WorkloadReport;
  const c = workloadVerdict(report('CORRUPT', 2));
  assert.deepEqual({ ...c, detail: undefined }, { outcome: 'corrupt', requests: 20, corruptRate: 0.1, features: ['after-eviction', 'prefix-hit'], detail: undefined });
  assert.match(c.detail!, /every corrupt request had: after-eviction, prefix-hit; corrupt: r0-evict-again-0, r1-evict-again-0/);
  assert.equal(workloadVerdict(report('CLEAN', 0)).outcome, 'pass');
  assert.equal(workloadVerdict(report('INCONCLUSIVE', 1)).outcome, 'probe-error');
});

test('the features of corrupt cells land in the journal, the text and JSON reports and the HTML page', async () => {
  const seedLike = loadPlanFile(fileURLToPath(new URL('../../test/fixtures/matrix/seed-like.yaml', import.meta.url)));
  const world = createFakeWorld({ faults: [{ fp8_kv: 'on', q_quant: 'disabled' }] });
  const probe: MatrixProbe = {
    captureReference: world.probe.captureReference,
    async probeCell(url, context) {
      const r = await world.probe.probeCell(url, context);
      return r.outcome === 'corrupt' ? { ...r, features: ['after-eviction', 'prefix-hit'] } : r;
    },
  };
  const journaled: unknown[] = [];
  const run = await runMatrix({ plan: seedLike, executor: world.executor, probe, shrinkSteps: 1000, journal: { append: (r: unknown) => journaled.push(r) } as never });
  const cells = journaled.flatMap((r) => ((r as { type: string }).type === 'cell' ? [(r as { cell: { outcome: string; features?: string[] } }).cell] : []));
  assert.ok(cells.some((c) => c.outcome === 'corrupt'));
  for (const c of cells) assert.deepEqual(c.features, c.outcome === 'corrupt' ? ['after-eviction', 'prefix-hit'] : undefined);
  const report = buildAttribution(run);
  const text = formatAttributionText(report);
  assert.match(text, /verdict\s+corrupt\s+every corrupt request had/);
  assert.match(text, /fails on the reference background: c\d+ \(every corrupt request had: after-eviction, prefix-hit\)/);
  const json = formatAttributionJson(report);
  assert.deepEqual((JSON.parse(json) as typeof report).cells.find((c) => c.outcome === 'corrupt')?.features, ['after-eviction', 'prefix-hit']);
  const dir = mkdtempSync(join(tmpdir(), 'faultline-workload-report-'));
  try {
    writeFileSync(join(dir, 'matrix.json'), json);
    const html = (await renderReportHtml(await buildReportData(['matrix.json'], { cwd: dir, command: 'faultline report', now: new Date(0) }))).html;
    assert.match(html, /every corrupt request had after-eviction, prefix-hit/);
    assert.match(html, /<th>every corrupt request had<\/th>/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
