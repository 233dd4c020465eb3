/**
 * HTML escaping for the report. The report shows text produced by servers and models under test,
 * so every interpolation is escaped unless it is a SafeHtml built by this module: the `html`
 * template tag escapes its values, and `trustedHtml` is kept for markup faultline itself produced
 * (vega's SVG, the stylesheet). Values only ever go into element text or double-quoted attributes.
 */

/** Markup that is safe to insert as it is. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export type HtmlValue = string | number | SafeHtml | null | undefined | false | readonly HtmlValue[];

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Escapes text for element content and quoted attributes. Control characters other than tab and
 * newline are shown as \xNN: browsers drop or mangle them, and a reader should see that they were there.
 */
export function escapeHtml(text: string): string {
  return (
    text
      .replace(/[&<>"']/g, (c) => ENTITIES[c])
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
  );
}

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** Template tag: literal parts are markup, every `${value}` is escaped (SafeHtml and arrays of it pass). */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new SafeHtml(out);
}

/** Markup faultline generated itself (never text from an input). */
export function trustedHtml(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

/** An http(s) link shown with its address; anything else (javascript:, data:) is shown as text only. */
export function externalLink(url: string, label: string = url): SafeHtml {
  if (!/^https?:\/\/[^\s"'<>]+$/i.test(url)) return html`${label}`;
  return html`<a href="${url}" rel="noreferrer noopener">${label}</a>`;
}
