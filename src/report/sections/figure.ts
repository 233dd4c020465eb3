/** A chart as a figure: title, the inline SVG, a caption that says how to read it. */
import type { RenderedChart } from '../charts.js';
import { html, trustedHtml, type SafeHtml } from '../escape.js';

export type Draw = (chart: import('../charts.js').ChartSpec) => Promise<RenderedChart>;

export function figure(chart: RenderedChart): SafeHtml {
  const marks = Object.entries(chart.expectedMarks)
    .map(([name, n]) => `${name}:${n}`)
    .join(' ');
  return html`<figure class="chart" id="${chart.id}" data-chart="${chart.id}" data-expected-marks="${marks}">
<h4>${chart.title}</h4>
<div class="svg">${trustedHtml(chart.svg)}</div>
<figcaption>${chart.caption}</figcaption>
</figure>`;
}
