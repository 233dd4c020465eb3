import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SuffixTrie } from './suffix.js';

const settings = { maxSpecFactor: 1, minTokenProb: 0.1 };
const trieOf = (tokens: number[], depth = 24) => {
  const t = new SuffixTrie(depth);
  t.extend(tokens);
  return t;
};

test('drafts the continuation of the longest earlier match', () => {
  // "a b c d" … "a b c" → d, then the walk goes on with what followed "a b c d"
  assert.deepEqual(trieOf([1, 2, 3, 4, 5, 9, 1, 2, 3]).propose(3, settings), [4, 5, 9]);
});

test('draft length ≤ max_spec_factor · match length, and ≤ the requested maximum', () => {
  const t = trieOf([1, 2, 3, 4, 5, 6, 7, 8, 0, 1, 2]);
  assert.deepEqual(t.propose(10, settings), [3, 4]); // match "1 2" (length 2) → at most 2 tokens
  assert.deepEqual(t.propose(10, { ...settings, maxSpecFactor: 3 }), [3, 4, 5, 6, 7, 8]);
  assert.deepEqual(t.propose(2, { ...settings, maxSpecFactor: 3 }), [3, 4]);
});

test('picks the most frequent continuation and stops when the estimated probability gets too low', () => {
  // after "1": 2 twice, 3 once → 2 (p = 2/3); after "1 2": 5 once, 6 once → 5 (p = 1/2, product 1/3);
  // then "1 2 5" was always followed by "1 2"
  const t = trieOf([1, 2, 5, 1, 2, 6, 1, 3, 0, 1]);
  assert.deepEqual(t.propose(4, { maxSpecFactor: 4, minTokenProb: 0.5 }), [2]);
  assert.deepEqual(t.propose(4, { maxSpecFactor: 4, minTokenProb: 0.2 }), [2, 5, 1, 2]);
  assert.deepEqual(t.propose(4, { maxSpecFactor: 2, minTokenProb: 0.2 }), [2, 5]); // match length 1 → ≤ 2 tokens
});

test('no recurring suffix → no draft; drafts longer than the tree is deep re-match as they go', () => {
  assert.deepEqual(trieOf([1, 2, 3, 4]).propose(5, settings), []);
  const loop = [1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4];
  const t = trieOf(loop, 4);
  assert.deepEqual(t.propose(10, { maxSpecFactor: 10, minTokenProb: 0.1 }), [1, 2, 3, 4, 1, 2, 3, 4, 1, 2]);
});

test('incremental appends equal building at once', () => {
  const seq = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4, 3, 3, 8, 3, 2, 7, 9, 5, 1, 4, 1, 5];
  const a = new SuffixTrie(5);
  for (let i = 0; i < seq.length; i++) {
    a.append(seq[i]);
    assert.deepEqual(a.propose(6, { maxSpecFactor: 3, minTokenProb: 0 }), trieOf(seq.slice(0, i + 1), 5).propose(6, { maxSpecFactor: 3, minTokenProb: 0 }));
  }
});
