import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRng } from '../../core/rng.js';
import { createRowSampler } from '../sampling.js';
import { GREEDY } from '../sampling.js';
import { verifyDrafts } from './verify.js';

const V = 6;
/** Logits rows whose argmax is the given token. */
const rowsFor = (argmaxes: number[]) => argmaxes.map((a) => Float32Array.from({ length: V }, (_, i) => (i === a ? 2 : i * 0.01)));
const greedy = createRowSampler({ sampling: GREEDY, rng: createRng(1), minTokens: 0, stopIds: [] });

test('greedy: accept while the target argmax equals the draft, then the correction token', () => {
  const rows = rowsFor([3, 1, 4, 5]);
  assert.deepEqual(verifyDrafts((t) => rows[t], [3, 1, 2], greedy, 0), { accepted: 2, tokens: [3, 1, 4] });
  assert.deepEqual(verifyDrafts((t) => rows[t], [0, 1, 4], greedy, 0), { accepted: 0, tokens: [3] });
});

test('greedy: every draft accepted → the bonus token from the last row (k + 1 tokens)', () => {
  const rows = rowsFor([3, 1, 4, 5]);
  assert.deepEqual(verifyDrafts((t) => rows[t], [3, 1, 4], greedy, 0), { accepted: 3, tokens: [3, 1, 4, 5] });
  assert.deepEqual(verifyDrafts((t) => rows[t], [], greedy, 0), { accepted: 0, tokens: [3] });
});

test('min_tokens masks stop ids in verification too (output positions below the minimum)', () => {
  const s = createRowSampler({ sampling: GREEDY, rng: createRng(1), minTokens: 2, stopIds: [3] });
  const rows = rowsFor([3, 3, 3]);
  // position 0 and 1: 3 is masked, next best is 5 (0.05); position 2: 3 allowed
  assert.deepEqual(verifyDrafts((t) => rows[t], [5, 5], s, 0), { accepted: 2, tokens: [5, 5, 3] });
});

test('sampled: a draft with ~zero target probability is rejected and never re-emitted', () => {
  const s = createRowSampler({ sampling: { temperature: 1, topK: 0, topP: 1 }, rng: createRng(3), minTokens: 0, stopIds: [] });
  const row = Float32Array.from([0, 0, -100, 0, 0, 0]);
  for (let i = 0; i < 50; i++) {
    const r = verifyDrafts(() => row, [2], s, 0);
    assert.equal(r.accepted, 0);
    assert.notEqual(r.tokens[0], 2);
  }
});

test('sampled: acceptance frequency follows the target probability of the draft', () => {
  const s = createRowSampler({ sampling: { temperature: 1, topK: 0, topP: 1 }, rng: createRng(5), minTokens: 0, stopIds: [] });
  const row = Float32Array.from([Math.log(3), 0, 0, 0, -Infinity, -Infinity]); // p(0) = 3/6 = 0.5
  let accepted = 0;
  const n = 4000;
  for (let i = 0; i < n; i++) accepted += verifyDrafts(() => row, [0], s, 0).accepted;
  // binomial(4000, 0.5): sd ≈ 32; 5 sd
  assert.ok(Math.abs(accepted - n / 2) < 160, `accepted ${accepted} of ${n}`);
});
