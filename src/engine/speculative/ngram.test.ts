import { test } from 'node:test';
import assert from 'node:assert/strict';
import { proposeNgram } from './ngram.js';

test("vLLM's docstring example: [1,2,3,4,2,3], n 2..3, k 4 → [4,2,3] (fewer than k when the sequence ends)", () => {
  assert.deepEqual(proposeNgram([1, 2, 3, 4, 2, 3], 2, 3, 4), [4, 2, 3]);
});

test('the longest suffix match wins over a shorter, earlier one', () => {
  // suffix [7,8,9]: occurs (length 3) at index 5..7 → proposes what followed (5); [8,9] alone also at 1..2
  assert.deepEqual(proposeNgram([0, 8, 9, 1, 2, 7, 8, 9, 5, 6, 7, 8, 9], 2, 4, 2), [5, 6]);
});

test('equally long matches: the earliest occurrence', () => {
  assert.deepEqual(proposeNgram([1, 2, 10, 1, 2, 20, 1, 2], 2, 2, 1), [10]);
});

test('matches are capped at max_n, and nothing below min_n', () => {
  assert.deepEqual(proposeNgram([5, 1, 2, 3, 9, 1, 2, 3], 4, 5, 3), []);
  assert.deepEqual(proposeNgram([5, 1, 2, 3, 9, 1, 2, 3], 3, 5, 3), [9, 1, 2]);
  assert.deepEqual(proposeNgram([1, 2, 3, 4], 1, 5, 3), []);
});

test('overlapping occurrences (a run of one token) and k = 0', () => {
  // the longest earlier match of the suffix is [7,7,7] ending at index 2: only one token follows it
  assert.deepEqual(proposeNgram([7, 7, 7, 7], 2, 3, 5), [7]);
  assert.deepEqual(proposeNgram([7, 7, 7, 7, 7, 7], 2, 2, 5), [7, 7, 7, 7]); // capped at 2: earliest match ends at 1
  assert.deepEqual(proposeNgram([1, 2, 1, 2], 1, 2, 0), []);
});
