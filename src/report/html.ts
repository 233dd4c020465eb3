/**
 * The report page: one self-contained HTML file. No script, no external resource: styles are
 * inline, charts are inline SVG, and a Content-Security-Policy meta forbids every remote load
 * (and every script), so a model output that slipped past escaping still could not run or fetch.
 */
import { renderChart, type ChartSpec, type RenderedChart } from './charts.js';
import type { ReportData } from './data.js';
import { html, trustedHtml, type SafeHtml } from './escape.js';
import { kernelSection } from './sections/kernel.js';
import { lintSection } from './sections/lint.js';
import { matrixSection } from './sections/matrix.js';
import { probeSection } from './sections/probe.js';
import { provenanceSection } from './sections/provenance.js';
import { summarySection } from './sections/summary.js';
import { STYLE } from './style.js';

export const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

export interface RenderedReport {
  html: string;
  charts: RenderedChart[];
}

function nav(d: ReportData): SafeHtml {
  const links: [string, string][] = [['summary', 'Verdict']];
  d.matrix.forEach((_, i) => links.push([`matrix-${i + 1}`, d.matrix.length > 1 ? `Matrix ${i + 1}` : 'Matrix']));
  d.probe.forEach((_, i) => links.push([`probe-${i + 1}`, d.probe.length > 1 ? `Probe ${i + 1}` : 'Probe']));
  d.kernel.forEach((_, i) => links.push([`kernel-${i + 1}`, d.kernel.length > 1 ? `Kernel ${i + 1}` : 'Kernel']));
  d.lint.forEach((_, i) => links.push([`lint-${i + 1}`, d.lint.length > 1 ? `Lint ${i + 1}` : 'Lint']));
  links.push(['provenance', 'Provenance']);
  return html`<nav>${links.map(([id, label]) => html`<a href="#${id}">${label}</a>`)}</nav>`;
}

export async function renderReportHtml(d: ReportData): Promise<RenderedReport> {
  const charts: RenderedChart[] = [];
  const draw = async (spec: ChartSpec) => {
    const chart = await renderChart(spec);
    charts.push(chart);
    return chart;
  };
  const sections: SafeHtml[] = [];
  for (const [i, m] of d.matrix.entries()) sections.push(await matrixSection(m, i, draw));
  for (const [i, p] of d.probe.entries()) sections.push(await probeSection(p, i, draw));
  for (const [i, k] of d.kernel.entries()) sections.push(await kernelSection(k, i, draw));
  d.lint.forEach((l, i) => sections.push(lintSection(l, i)));
  const p = d.provenance;
  const page = html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="faultline ${p.faultline}">
<title>${d.title}</title>
<style>${trustedHtml(STYLE)}</style>
</head>
<body>
<main>
<header>
<h1>${d.title}</h1>
<p>faultline ${p.faultline}${p.gitRevision ? ` (${p.gitRevision.slice(0, 12)})` : ''} · ${p.generatedAt} · ${p.inputs.length} input${p.inputs.length === 1 ? '' : 's'}</p>
${nav(d)}
</header>
${summarySection(d)}
${sections}
${provenanceSection(d)}
</main>
</body>
</html>
`;
  return { html: page.value, charts };
}
