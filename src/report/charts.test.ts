import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countMarks, renderChart } from './charts.js';
import type { KernelData, MatrixData, ProbeData } from './data.js';
import { alignmentChart, rowHeadChart } from './specs/kernel.js';
import { matrixChart } from './specs/matrix.js';
import { pageOffsetChart, positionChart } from './specs/probe.js';

function matrix(): MatrixData {
  const factors = [
    { name: 'fp8_kv', levels: ['off', 'on'], reference: 'off' },
    { name: '<b>spec</b>', levels: ['off', '<script>x</script>'], reference: 'off' },
  ];
  const cells = [
    { id: 'c001', phase: 'covering', levels: { fp8_kv: 'on', '<b>spec</b>': '<script>x</script>' }, outcome: 'corrupt' as const, corruptRate: 0.5, probeRounds: 1 },
    { id: 'c002', phase: 'covering', levels: { fp8_kv: 'off', '<b>spec</b>': 'off' }, outcome: 'pass' as const, corruptRate: 0, probeRounds: 3 },
    { id: 'c003', phase: 'localize', levels: { fp8_kv: 'on', '<b>spec</b>': 'off' }, outcome: 'launch-failed' as const, probeRounds: 0 },
  ];
  return {
    source: 'm', verdict: 'inconclusive', plan: { file: 'p.yaml', hash: 'h', strength: 2, confirm: 2 }, factors, cells,
    interactions: [], notInvolved: [], explained: {}, unexamined: [], launchFailures: [],
    launches: { used: 3, thisRun: 3, reusedFromJournal: 0, reference: 1, coveringRows: 2, exhaustive: 4, oneFactorAtATime: 3 },
    coverage: { strength: 2, validTuples: 4, uncoveredByVerdicts: 0 },
    localizationSteps: [cells[2]], complete: true, notes: [],
  };
}

test('matrix heatmap: one tile per launch × (factors + verdict), rate tiles where a rate exists, labels for changed levels', async () => {
  const spec = matrixChart(matrix(), 0);
  assert.deepEqual(spec.expectedMarks, { matrix_cells: 9, matrix_rate: 2, matrix_labels: 3 + 3 + 2 });
  const chart = await renderChart(spec);
  for (const [name, n] of Object.entries(spec.expectedMarks)) assert.equal(countMarks(chart.svg, name), n, name);
  // names from a plan are text in the SVG, never markup
  assert.ok(!chart.svg.includes('<script>') && !chart.svg.includes('<b>'));
  assert.ok(chart.svg.includes('&lt;script&gt;x&lt;/script&gt;'));
  // the only references are to the SVG's own gradients (url(#…)): nothing outside it
  assert.deepEqual(chart.svg.match(/href=|url\((?!#)/g), null);
});

test('kernel maps: one tile per (seq_len − window, seq_len mod page) seen and per (row, head)', async () => {
  const k = {
    source: 'k', ok: false, tolerance: 'auto', dumps: [], controls: [], hypotheses: [], scope: 'dumps with errors', pageSizes: [16],
    alignment: [
      { sinceWindow: -1, seqModPage: 15, requests: 2, failing: 0 },
      { sinceWindow: 16, seqModPage: 0, requests: 2, failing: 2 },
      { sinceWindow: 17, seqModPage: 1, requests: 2, failing: 1 },
    ],
    rowHead: [0, 1, 2].flatMap((row) => [0, 1].map((head) => ({ row, head, pairs: 4, failing: row === 2 && head === 1 ? 3 : 0 }))),
  } satisfies KernelData;
  for (const spec of [alignmentChart(k, 0), rowHeadChart(k, 0)]) {
    const chart = await renderChart(spec);
    for (const [name, n] of Object.entries(spec.expectedMarks)) assert.equal(countMarks(chart.svg, name), n, `${spec.id} ${name}`);
  }
  assert.deepEqual(alignmentChart(k, 0).expectedMarks, { kernel_alignment: 3 });
  assert.deepEqual(rowHeadChart(k, 0).expectedMarks, { kernel_row_head: 6 });
});

test('probe charts: a bar per position bin and a coverage line under it, the window rule, every page slot', async () => {
  const p = {
    source: 'p', verdict: 'CORRUPT', reason: '', target: { url: 'http://x' }, reference: { url: 'http://y' }, suite: 'window-crossing', window: 32, pageSize: 8,
    counts: { planned: 1, judged: 1, identical: 0, benignDrift: 0, corrupt: 1, failed: 0, notRun: 0 },
    tokens: { judged: 48, corrupt: 2, rate: 2 / 48, upper: 0.1 },
    corruptTokens: [
      { request: 'a', index: 20, position: 40, sinceWindow: 8, pageOffset: 0, class: 'implausible' },
      { request: 'a', index: 30, position: 50, sinceWindow: 18, pageOffset: 2, class: 'implausible' },
    ],
    byPosition: [
      { from: 17, to: 33, generated: 13, corrupt: 0 },
      { from: 33, to: 49, generated: 16, corrupt: 1 },
      { from: 49, to: 65, generated: 16, corrupt: 1 },
    ],
    generatedFrom: 'max_tokens', byPageOffset: Array.from({ length: 8 }, (_, offset) => ({ offset, corrupt: offset === 0 || offset === 2 ? 1 : 0 })),
    examples: [], notes: [], errors: [],
  } satisfies ProbeData;
  const positions = positionChart(p, 0);
  assert.deepEqual(positions.expectedMarks, { probe_positions: 3, probe_coverage: 3, probe_window: 1 });
  const offsets = pageOffsetChart(p, 0);
  assert.deepEqual(offsets.expectedMarks, { probe_page_offsets: 8 });
  for (const spec of [positions, offsets]) {
    const chart = await renderChart(spec);
    for (const [name, n] of Object.entries(spec.expectedMarks)) assert.equal(countMarks(chart.svg, name), n, `${spec.id} ${name}`);
  }
  const noWindow = positionChart({ ...p, window: undefined }, 0);
  assert.equal(noWindow.expectedMarks.probe_window, 0);
  assert.equal(countMarks((await renderChart(noWindow)).svg, 'probe_window'), 0);
});
