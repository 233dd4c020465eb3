import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildReportData } from './build.js';
import { countMarks } from './charts.js';
import { escapeHtml } from './escape.js';
import { CONTENT_SECURITY_POLICY, renderReportHtml } from './html.js';
import { writeChartPngs } from './png.js';

const fixtures = fileURLToPath(new URL('../../test/fixtures/report/', import.meta.url));
const XSS = '<script>alert(1)</script><img src=x onerror=alert(1)>';
const now = new Date('2026-11-30T12:00:00Z');

const report = (async () => {
  const data = await buildReportData(['lint-seed-b200.json', 'kernel-kv-dtype-controls.json', 'probe-fake-corrupt.json'], {
    cwd: fixtures,
    command: 'faultline report …',
    now,
    title: `Report <i>${XSS}</i>`,
  });
  return { data, rendered: await renderReportHtml(data) };
})();

test('one self-contained page: the CSP meta first in <head>, no script, no external resource', async () => {
  const { html } = (await report).rendered;
  const head = html.slice(0, html.indexOf('</head>'));
  assert.ok(head.includes(`<meta http-equiv="Content-Security-Policy" content="${escapeHtml(CONTENT_SECURITY_POLICY)}">`));
  assert.ok(head.indexOf('Content-Security-Policy') < head.indexOf('<style>'), 'the policy precedes everything it governs');
  assert.match(CONTENT_SECURITY_POLICY, /default-src 'none'/);
  assert.match(CONTENT_SECURITY_POLICY, /img-src data:/);
  assert.doesNotMatch(CONTENT_SECURITY_POLICY, /script-src/, 'no script allowed at all (default-src none)');
  // text is escaped, so every raw `<` opens a tag faultline wrote: check the tags and the stylesheet
  const tags = html.match(/<[a-zA-Z][^>]*>/g)!.join('\n');
  const css = /<style>([\s\S]*?)<\/style>/.exec(html)![1];
  assert.equal(tags.match(/<(script|link|img|iframe|object|embed|base|form)\b/gi), null);
  assert.equal(tags.match(/\b(src|srcset|xlink:href)=|url\((?!#)/gi), null, 'nothing loads from anywhere');
  assert.equal(tags.match(/\son[a-z]+=/gi), null, 'no event handler attributes');
  assert.deepEqual([...tags.matchAll(/href="([^"]*)"/g)].map((m) => m[1]).filter((h) => !h.startsWith('#') && !h.startsWith('https://')), []);
  assert.equal(css.match(/@import|url\(/g), null);
});

test('model output and titles are text: the payload appears only escaped', async () => {
  const { html } = (await report).rendered;
  assert.ok(!html.includes(XSS));
  assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;'));
  assert.ok(html.includes('<title>Report &lt;i&gt;'));
  assert.ok(html.includes('<mark class="corrupt">'), 'corrupt tokens are highlighted');
});

test('every chart has the marks its data implies; the verdict names what is corrupt', async () => {
  const { data, rendered } = await report;
  assert.deepEqual(rendered.charts.map((c) => c.id), ['probe-1-positions', 'probe-1-page-offsets', 'kernel-1-alignment', 'kernel-1-row-head']);
  for (const c of rendered.charts)
    for (const [name, n] of Object.entries(c.expectedMarks)) {
      assert.ok(n > 0 || name === 'probe_window', `${c.id} ${name} draws something`);
      assert.equal(countMarks(c.svg, name), n, `${c.id} ${name}`);
      assert.ok(rendered.html.includes(`data-chart="${c.id}"`));
    }
  assert.deepEqual(data.summary.map((s) => [s.kind, s.status]), [['probe', 'corrupt'], ['kernel', 'corrupt'], ['lint', 'findings']]);
  assert.match(data.summary[2].headline, /FL001 \(swa-specdec-bf16q-fp8kv-trtllm\) applies/);
  assert.match(data.summary[0].headline, /all past the window/);
  assert.equal(data.provenance.generatedAt, now.toISOString());
  assert.deepEqual(data.provenance.inputs.map((i) => i.kind), ['lint', 'kernel', 'probe']);
});

test('--png: each chart as a PNG at twice its SVG size', async () => {
  const { rendered } = await report;
  const dir = mkdtempSync(join(tmpdir(), 'faultline-report-png-'));
  try {
    const chart = rendered.charts.find((c) => c.id === 'probe-1-page-offsets')!;
    const [file] = await writeChartPngs([chart], dir);
    const png = readFileSync(file);
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const width = Number(/<svg[^>]* width="(\d+)"/.exec(chart.svg)![1]);
    assert.equal(png.readUInt32BE(16), 2 * width);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
