/** A probe run: verdict line, the two position charts, and the worst requests side by side. */
import type { ProbeData, ProbeExampleData } from '../data.js';
import { html, type SafeHtml } from '../escape.js';
import { pageOffsetChart, positionChart } from '../specs/probe.js';
import { percent } from '../summary.js';
import { figure, type Draw } from './figure.js';
import { badge, table } from './tables.js';

function example(e: ProbeExampleData): SafeHtml {
  const where = `first at position ${e.firstPosition}${e.sinceWindow !== undefined ? ` (position − window ${e.sinceWindow})` : ''}`;
  return html`<div class="example" data-request="${e.id}">
<h4>${e.id} <span class="muted">${e.corruptTokens} corrupt token${e.corruptTokens === 1 ? '' : 's'}, ${where}</span></h4>
<div class="side-by-side">
<div><div class="label">reference</div><pre class="model-text">${e.reference}</pre></div>
<div><div class="label">candidate (corrupt tokens marked)</div><pre class="model-text">${e.candidate.map((s) => (s.corrupt ? html`<mark class="corrupt">${s.text}</mark>` : s.text))}</pre></div>
</div></div>`;
}

export async function probeSection(p: ProbeData, index: number, draw: Draw): Promise<SafeHtml> {
  const c = p.counts;
  const positions = p.byPosition.length ? await draw(positionChart(p, index)) : undefined;
  const offsets = p.corruptTokens.length ? await draw(pageOffsetChart(p, index)) : undefined;
  const kind = p.verdict === 'CORRUPT' ? 'corrupt' : p.verdict === 'CLEAN' ? 'pass' : 'inconclusive';
  return html`<section class="probe" id="probe-${index + 1}"><h2>Probe <span class="source">${p.source}</span></h2>
<p>${badge(p.verdict, kind)} ${p.reason}</p>
${table(
  ['', ''],
  [
    ['target', `${p.target.url}${p.target.model ? ` (model ${p.target.model})` : ''}`],
    ['reference', `${p.reference.golden ? `golden ${p.reference.golden}` : (p.reference.url ?? '?')}${p.reference.model ? ` (model ${p.reference.model})` : ''}`],
    ['suite', `${p.suite}${p.window !== undefined ? `, window ${p.window}` : ', window unknown'}, page ${p.pageSize}`],
    ['requests', `${c.judged} judged of ${c.planned} planned: ${c.identical} identical, ${c.benignDrift} benign drift, ${c.corrupt} corrupt, ${c.failed} failed${c.notRun ? `, ${c.notRun} not run (decided early)` : ''}`],
    ['tokens', `${p.tokens.corrupt} implausible of ${p.tokens.judged} judged (${percent(p.tokens.rate)}; at most ${percent(p.tokens.upper)} at the test's confidence)`],
  ],
  'facts',
)}
${positions ? figure(positions) : html`<p>No judged tokens to chart.</p>`}
${offsets ? figure(offsets) : ''}
${p.examples.length ? html`<h3>Worst requests, side by side</h3>${p.examples.map(example)}` : ''}
${p.errors.length ? html`<h4>Errors</h4>${table(['count', 'message'], p.errors.slice(0, 20).map((e) => [String(e.count), e.message]))}` : ''}
${p.notes.length ? html`<ul class="notes">${p.notes.map((n) => html`<li>${n}</li>`)}</ul>` : ''}
</section>`;
}
