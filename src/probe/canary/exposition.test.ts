import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseExposition } from '../../../test/helpers/prometheus.js';
import { EXPOSITION_CONTENT_TYPE, renderExposition } from './exposition.js';

test('label values and HELP text are escaped as the format says; an independent parser reads them back', () => {
  const nasty = 'a\\b"c\nd';
  const text = renderExposition([
    { name: 'x_total', help: 'one \\ two\nthree', type: 'counter', samples: [{ labels: { target: nasty, v: '' }, value: 3 }] },
    { name: 'ns:y', help: 'specials', type: 'gauge', samples: [
      { labels: { k: 'nan' }, value: NaN },
      { labels: { k: 'inf' }, value: Infinity },
      { labels: { k: 'ninf' }, value: -Infinity },
      { labels: {}, value: 0.25 },
    ] },
  ]);
  assert.ok(text.includes('x_total{target="a\\\\b\\"c\\nd",v=""} 3\n'));
  assert.ok(text.includes('# HELP x_total one \\\\ two\\nthree\n'));
  assert.ok(text.endsWith('ns:y 0.25\n'));
  const parsed = parseExposition(text);
  assert.equal(parsed[0].type, 'COUNTER');
  assert.equal(parsed[0].metrics[0].labels?.target, nasty);
  assert.deepEqual(parsed[1].metrics.map((m) => m.value), ['NaN', '+Inf', '-Inf', '0.25']);
  assert.match(EXPOSITION_CONTENT_TYPE, /^text\/plain; version=0\.0\.4/);
});

test('invalid metric or label names and a family rendered twice are bugs, refused', () => {
  const f = (name: string, labels: Record<string, string> = {}) => ({ name, help: 'h', type: 'gauge' as const, samples: [{ labels, value: 1 }] });
  assert.throws(() => renderExposition([f('9bad')]), /metric name/);
  assert.throws(() => renderExposition([f('ok', { 'bad-label': 'x' })]), /label name/);
  assert.throws(() => renderExposition([f('ok', { __reserved: 'x' })]), /label name/);
  assert.throws(() => renderExposition([f('ok'), f('ok')]), /twice/);
});
