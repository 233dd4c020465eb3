/** Lint findings: hazard id, where, what to change. */
import type { LintData } from '../data.js';
import { externalLink, html, type SafeHtml } from '../escape.js';
import { badge, table } from './tables.js';

export function lintSection(l: LintData, index: number): SafeHtml {
  return html`<section class="lint" id="lint-${index + 1}"><h2>Lint <span class="source">${l.source}</span></h2>
<p>${l.findings.length} finding${l.findings.length === 1 ? '' : 's'} in ${l.launches} launch${l.launches === 1 ? '' : 'es'}.</p>
${l.findings.length
  ? table(
      ['hazard', '', 'where', 'finding', 'remedies'],
      [...l.findings].sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1)).map((f) => [
        html`<b>${f.hazardId}</b><br><span class="muted">${f.alias}</span>`,
        badge(f.severity === 'error' ? 'applies' : 'possibly', f.severity === 'error' ? 'corrupt' : 'inconclusive'),
        html`<code>${f.location}</code>`,
        html`${f.message}${f.references.length ? html`<br><span class="muted refs">${f.references.map((r, i) => html`${i ? ' · ' : ''}${externalLink(r.url, r.title)}`)}</span>` : ''}`,
        html`<ul>${f.remedies.map((r) => html`<li>${r.change}</li>`)}</ul>`,
      ]),
      'findings',
    )
  : ''}
${l.notes.length ? html`<ul class="notes">${l.notes.map((n) => html`<li>${n}</li>`)}</ul>` : ''}
</section>`;
}
