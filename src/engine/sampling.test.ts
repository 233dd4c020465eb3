import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRng } from '../core/rng.js';
import { argmax, createRowSampler, distribution, logSoftmax, sample, topLogprobs, GREEDY } from './sampling.js';

const logits = Float32Array.from([1, 3, 3, 0, 2]);

test('greedy: argmax, ties to the lowest id', () => {
  assert.equal(argmax(logits), 1);
  assert.equal(sample(logits, GREEDY, 0.99), 1);
});

test('logprobs: log_softmax, top-k sorted by probability then id', () => {
  const lp = logSoftmax(logits);
  assert.ok(Math.abs(lp.reduce((a, x) => a + Math.exp(x), 0) - 1) < 1e-12);
  assert.deepEqual(topLogprobs(logits, 3).map((t) => t.id), [1, 2, 4]);
  assert.equal(topLogprobs(logits, 1)[0].logprob, lp[1]);
});

test('temperature sampling is inverse-CDF over tokens ranked by probability', () => {
  const p = { temperature: 1, topK: 0, topP: 1 };
  const probs = Array.from(logSoftmax(logits), Math.exp);
  // ranked: 1, 2, 4, 0, 3
  assert.equal(sample(logits, p, 0), 1);
  assert.equal(sample(logits, p, probs[1] + 1e-9), 2);
  assert.equal(sample(logits, p, probs[1] + probs[2] + 1e-9), 4);
  assert.equal(sample(logits, p, 0.999999), 3);
});

test('top-k and top-p restrict the candidates; frequencies follow the renormalised probabilities', () => {
  assert.equal(sample(logits, { temperature: 1, topK: 2, topP: 1 }, 0.999), 2);
  // top-p 0.5: tokens 1 and 2 each have ~0.33, so the set {1, 2} is the smallest reaching 0.5
  const seen = new Set<number>();
  for (let u = 0; u < 1; u += 0.01) seen.add(sample(logits, { temperature: 1, topK: 0, topP: 0.5 }, u));
  assert.deepEqual([...seen].sort(), [1, 2]);
  // frequencies at temperature 2 over a uniform grid of u match softmax(logits / 2)
  const counts = new Array(5).fill(0);
  const N = 20000;
  for (let i = 0; i < N; i++) counts[sample(logits, { temperature: 2, topK: 0, topP: 1 }, (i + 0.5) / N)]++;
  const want = Array.from(logSoftmax(logits.map((x) => x / 2)), Math.exp);
  counts.forEach((c, i) => assert.ok(Math.abs(c / N - want[i]) < 1e-3, `token ${i}`));
});

test('masked tokens (−∞) are no candidates: never drawn for any u, never a top-k place; NaN neither', () => {
  const masked = Float32Array.from([2, -Infinity, 1, -Infinity, 0.5, NaN]);
  assert.deepEqual(distribution(masked, { temperature: 1, topK: 2, topP: 1 }).ids, [0, 2]);
  assert.deepEqual(distribution(masked, { temperature: 1, topK: 10, topP: 1 }).ids, [0, 2, 4], 'top-k larger than the candidates keeps only candidates');
  const seen = new Set<number>();
  for (let i = 0; i < 1000; i++) seen.add(sample(masked, { temperature: 3, topK: 0, topP: 1 }, i / 1000));
  seen.add(sample(masked, { temperature: 3, topK: 0, topP: 1 }, 1 - Number.EPSILON));
  assert.deepEqual([...seen].sort(), [0, 2, 4]);
  assert.throws(() => sample(Float32Array.from([-Infinity, -Infinity]), { temperature: 1, topK: 0, topP: 1 }, 0.5), /every logit is −∞/);
});

test('one truncation for every sampled choice: a draft masked by min_tokens is rejected without a draw, and its replacement is never masked', () => {
  const logits = Float32Array.from([1, 1.5, 3, 0]);
  const sampling = { temperature: 1, topK: 0, topP: 1 };
  const rng = createRng(3);
  const rs = createRowSampler({ sampling, rng, minTokens: 2, stopIds: [2] });
  assert.equal(rs.accept(logits, 0, 2), false, 'the stop token cannot be accepted before min_tokens');
  assert.equal(rng.next(), createRng(3).next(), 'and no random number was used for it');
  for (let i = 0; i < 50; i++) assert.notEqual(rs.recover(logits, 1, 0), 2);
  for (let i = 0; i < 50; i++) assert.notEqual(rs.pick(logits, 0), 2);
  // from min_tokens on the stop token is an ordinary candidate again
  const late = new Set(Array.from({ length: 200 }, () => rs.pick(logits, 2)));
  assert.ok(late.has(2));
});
