import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isMap, isScalar, parseDocument, stringify, type Scalar } from 'yaml';
import { scalarCharOffsets } from './yaml-scalar-offsets.js';

function scalarOf(src: string): Scalar {
  const doc = parseDocument(src);
  const item = isMap(doc.contents) ? doc.contents.items[0] : undefined;
  if (!item || !isScalar(item.value)) throw new Error('test input must be `key: scalar`');
  return item.value as Scalar;
}

/** Every mapped offset must point at the very character (or, for folds/escapes, at the source of it). */
function check(src: string, expectedAt: Record<number, string>): void {
  const node = scalarOf(src);
  const offsets = scalarCharOffsets(src, node);
  assert.ok(offsets, `no map for ${JSON.stringify(src)}`);
  assert.equal(offsets.length, String(node.value).length);
  for (const [i, ch] of Object.entries(expectedAt)) assert.equal(src[offsets[Number(i)]], ch, `char ${i} of ${JSON.stringify(src)}`);
}

test('double-quoted, folded over two lines with an escape', () => {
  const src = 'k: "ab \\"c\\" \n     de"\n';
  assert.equal(scalarOf(src).value, 'ab "c" de');
  check(src, { 0: 'a', 3: '\\', 7: 'd', 8: 'e' });
});

test('single-quoted with a doubled quote; plain multi-line', () => {
  check("k: 'it''s\n  x'\n", { 0: 'i', 2: "'", 5: 'x' });
  check('k: a b\n  c\n', { 0: 'a', 2: 'b', 4: 'c' });
});

test('literal and folded block scalars', () => {
  check('k: |\n  vllm serve m \\\n    --x 1\n', { 0: 'v', 13: '\\', 17: '-' });
  check('k: >-\n  vllm serve\n  m --x 1\n', { 0: 'v', 11: 'm', 13: '-' });
});

test('explicit indentation indicators are not mapped (the caller falls back to the scalar start)', () => {
  const src = 'k: |2\n    x\n';
  assert.equal(scalarCharOffsets(src, scalarOf(src)), undefined);
});

test('property: any string written by the yaml library maps back character by character', () => {
  fc.assert(
    fc.property(fc.string({ unit: fc.constantFrom('a', ' ', '\n', '"', "'", '\\', '-', ':', '#', 'é', '\t') }), (s) => {
      const src = stringify({ k: s });
      const node = scalarOf(src);
      const offsets = scalarCharOffsets(src, node);
      if (!offsets) return; // allowed: the caller falls back to the scalar start
      // The map is of the value the library reads back, which is not always `s`: a block scalar
      // written for text that starts with a space loses it (` \t\n` reads back as `\t\n`).
      const value = String(node.value);
      assert.equal(offsets.length, value.length);
      for (let i = 0; i < value.length; i++) {
        assert.ok(offsets[i] >= (node.range?.[0] ?? 0) && offsets[i] <= (node.range?.[1] ?? 0));
        if (/[a-zé:#-]/.test(value[i])) assert.equal(src[offsets[i]], value[i]);
      }
    }),
    { numRuns: 300 },
  );
});

test('empty lines before a block scalar’s first content map inside the scalar', () => {
  const src = 'k: |-\n  \n\n\n\n  a\n';
  const node = scalarOf(src);
  const offsets = scalarCharOffsets(src, node);
  assert.ok(offsets);
  assert.equal(src[offsets[4]], 'a');
  for (const o of offsets) assert.ok(o >= (node.range?.[0] ?? 0) && o <= (node.range?.[1] ?? 0), `offset ${o} outside the scalar`);
});
