import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { escapeHtml, externalLink, html, trustedHtml } from './escape.js';

const XSS = '<script>alert(1)</script><img src=x onerror=alert(1)>';

test('escapeHtml: markup characters become entities; control characters become visible \\xNN', () => {
  assert.equal(escapeHtml(XSS), '&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;');
  assert.equal(escapeHtml(`a&b "c" 'd'`), 'a&amp;b &quot;c&quot; &#39;d&#39;');
  assert.equal(escapeHtml('x\u0000y\u001bz\u0085'), 'x\\x00y\\x1bz\\x85');
  assert.equal(escapeHtml('line\n\ttab'), 'line\n\ttab', 'newline and tab are text');
});

test('html``: values are escaped, SafeHtml and arrays of it pass, empty values vanish', () => {
  const item = (s: string) => html`<li>${s}</li>`;
  const out = html`<ul title="${XSS}">${[XSS, 'b'].map(item)}${null}${undefined}${false}${3}</ul>`;
  assert.equal(
    out.value,
    '<ul title="&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"><li>&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;</li><li>b</li>3</ul>',
  );
  assert.equal(html`<p>${trustedHtml('<b>ok</b>')}</p>`.value, '<p><b>ok</b></p>');
});

test('html``: no string can open a tag, close an attribute or start an entity of its own', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary' }), (s) => {
      const inner = html`<p title="${s}">${s}</p>`.value.slice('<p title="'.length, -'</p>'.length);
      assert.ok(!/[<>"']/.test(inner.replace('">', '')), inner);
      assert.ok(!/&(?!(amp|lt|gt|quot|#39);)/.test(inner), inner);
    }),
  );
});

test('externalLink: http(s) becomes a link, anything else only text', () => {
  assert.equal(externalLink('https://github.com/x/y/issues/1', 'x#1').value, '<a href="https://github.com/x/y/issues/1" rel="noreferrer noopener">x#1</a>');
  assert.equal(externalLink('javascript:alert(1)', 'click').value, 'click');
  assert.equal(externalLink('https://a.b/"onmouseover=alert(1)', 'q').value, 'q');
});
