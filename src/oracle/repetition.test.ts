import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  canonicalRotation,
  excessRepetition,
  findRepeatedSpans,
  type RepetitionOptions,
} from './repetition.js';

const words = (s: string) => s.split(' ').map((w) => w.charCodeAt(0) * 100 + w.length);

test('finds "a sequence of" repeated, with its smallest period', () => {
  const t = words('we saw a sequence of a sequence of a sequence of a sequence of things');
  const spans = findRepeatedSpans(t);
  assert.equal(spans.length, 1);
  assert.deepEqual(
    { start: spans[0].start, size: spans[0].patternSize, count: spans[0].count },
    { start: 2, size: 3, count: 4 },
  );
});

test('a single-token run is reported once at period 1 when allowed, not at every period', () => {
  const t = [9, 1, 1, 1, 1, 1, 1, 8];
  const spans = findRepeatedSpans(t, { minPatternSize: 1, maxPatternSize: 4, minCount: 3 });
  assert.deepEqual(
    spans.map((s) => [s.start, s.patternSize, s.count, s.length]),
    [[1, 1, 6, 6]],
  );
  assert.deepEqual(
    findRepeatedSpans(t, { minPatternSize: 2, maxPatternSize: 4, minCount: 3 }).map((s) => s.patternSize),
    [2],
  );
});

test('canonical rotation makes the same loop entered at another phase equal', () => {
  assert.deepEqual(canonicalRotation([3, 1, 2]), [1, 2, 3]);
  assert.deepEqual(canonicalRotation([2, 3, 1]), [1, 2, 3]);
});

test('excess repetition: only loops the reference does not produce, after the divergence', () => {
  const loop = words('x y z a b c a b c a b c a b c');
  const refSame = words('q r s b c a b c a b c a b c a');
  assert.equal(excessRepetition(refSame, loop).length, 0, 'same loop at another phase');
  const refClean = words('x y z a b c d e f g h i j k l');
  assert.equal(excessRepetition(refClean, loop).length, 1);
  assert.equal(excessRepetition(refClean, loop, undefined, 16).length, 0, 'span ends before the divergence');
});

test('property: every span is periodic over its length with ≥ minCount whole repeats', () => {
  const opts: RepetitionOptions = { minPatternSize: 1, maxPatternSize: 6, minCount: 2 };
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 60 }), (t) => {
      for (const s of findRepeatedSpans(t, opts)) {
        assert.ok(s.count >= opts.minCount && s.count * s.patternSize <= s.length);
        for (let i = s.start + s.patternSize; i < s.start + s.length; i++)
          assert.equal(t[i], t[i - s.patternSize]);
      }
    }),
    { seed: 11, numRuns: 300 },
  );
});
