/** The verdict summary at the top: one card per input, worst first. */
import type { ReportData, SummaryItem } from '../data.js';
import { html, type SafeHtml } from '../escape.js';

const ORDER: Record<SummaryItem['status'], number> = { corrupt: 0, findings: 1, inconclusive: 2, clean: 3 };
const LABEL: Record<SummaryItem['status'], string> = { corrupt: 'CORRUPT', findings: 'HAZARDS', inconclusive: 'INCONCLUSIVE', clean: 'CLEAN' };
const KIND: Record<SummaryItem['kind'], string> = { matrix: 'matrix', probe: 'probe', kernel: 'kernel', lint: 'lint' };

export function summarySection(d: ReportData): SafeHtml {
  const items = [...d.summary].sort((a, b) => ORDER[a.status] - ORDER[b.status]);
  return html`<section id="summary" class="summary"><h2>Verdict</h2>
${items.length === 0 ? html`<p>No inputs.</p>` : ''}
${items.map(
  (s) => html`<div class="card ${s.status}">
<div class="card-head"><span class="badge ${s.status}">${LABEL[s.status]}</span> <span class="kind">${KIND[s.kind]}</span> <span class="source">${s.source}</span></div>
<p class="headline">${s.headline}</p>
${s.details.length ? html`<ul>${s.details.map((x) => html`<li>${x}</li>`)}</ul>` : ''}
</div>`,
)}
</section>`;
}
