import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createReferenceBackend } from './attention/reference-backend.js';
import { Engine } from './engine.js';
import { computeLogits, generate } from './generate.js';
import { randomModel, tinyConfig } from './testing/random-init.js';
import { argmax, GREEDY } from './sampling.js';

const model = randomModel(tinyConfig(), { seed: 4, std: 0.08 });
const newEngine = () =>
  new Engine(model, { precision: 'fp32', kvDtype: 'fp32', pageSize: 16, cacheKind: 'paged', backend: createReferenceBackend() });
const prompt = [256, ...new TextEncoder().encode('the engine generates')];

test('greedy generation = argmax of the exact full-sequence logits at every step', () => {
  const out = generate(newEngine(), prompt, { maxTokens: 12, sampling: GREEDY, seed: 0, logprobs: 3, stopAtEos: false });
  assert.equal(out.tokens.length, 12);
  assert.equal(out.finishReason, 'length');
  const V = model.config.vocabSize;
  const ids = [...prompt];
  for (const t of out.tokens) {
    const logits = computeLogits(model, ids);
    const last = logits.subarray((ids.length - 1) * V);
    assert.equal(t.id, argmax(last));
    assert.equal(t.top[0].id, t.id);
    assert.equal(t.top.length, 3);
    ids.push(t.id);
  }
});

test('seeded sampling is reproducible and the seed matters', () => {
  const opts = { maxTokens: 16, sampling: { temperature: 1.5, topK: 0, topP: 1 }, logprobs: 0, stopAtEos: false };
  const a = generate(newEngine(), prompt, { ...opts, seed: 1 }).tokens.map((t) => t.id);
  const b = generate(newEngine(), prompt, { ...opts, seed: 1 }).tokens.map((t) => t.id);
  const c = generate(newEngine(), prompt, { ...opts, seed: 2 }).tokens.map((t) => t.id);
  assert.deepEqual(a, b);
  assert.notDeepEqual(a, c);
});

test('the engine releases the sequence afterwards', () => {
  const e = newEngine();
  generate(e, prompt, { maxTokens: 2, sampling: GREEDY, seed: 0, logprobs: 0 });
  assert.equal(e.length(0), 0);
});
