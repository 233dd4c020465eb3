/** Small table helper: header cells and rows of already-escaped cells. */
import { html, type HtmlValue, type SafeHtml } from '../escape.js';

export function table(headers: readonly string[], rows: readonly (readonly HtmlValue[])[], className = ''): SafeHtml {
  return html`<table class="${className}"><thead><tr>${headers.map((h) => html`<th>${h}</th>`)}</tr></thead>
<tbody>${rows.map((r) => html`<tr>${r.map((c) => html`<td>${c}</td>`)}</tr>\n`)}</tbody></table>`;
}

export function badge(text: string, kind: string): SafeHtml {
  return html`<span class="badge ${kind}">${text}</span>`;
}
