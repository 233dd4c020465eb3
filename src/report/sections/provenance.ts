/** Where the report came from: faultline version and revision, the command, the time, each input's hash. */
import type { ReportData } from '../data.js';
import { html, type SafeHtml } from '../escape.js';
import { table } from './tables.js';

export function provenanceSection(d: ReportData): SafeHtml {
  const p = d.provenance;
  return html`<section id="provenance" class="provenance"><h2>Provenance</h2>
<dl>
<dt>faultline</dt><dd>${p.faultline}${p.gitRevision ? html` (git ${p.gitRevision})` : ' (git revision unknown)'}</dd>
<dt>command</dt><dd><code>${p.command}</code></dd>
<dt>made</dt><dd>${p.generatedAt}</dd>
</dl>
${table(['input', 'kind', 'sha256'], p.inputs.map((i) => [html`<code>${i.path}</code>`, i.kind, html`<code class="hash">${i.sha256}</code>`]))}
</section>`;
}
