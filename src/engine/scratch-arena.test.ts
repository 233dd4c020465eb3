/**
 * Steps of up to 64 rows keep their scratch in the SIMD kernels' memory (the arena: no copies around
 * the matmuls); larger steps use arrays on the JS heap. Both must give the same bits, and switching
 * back and forth must not leave anything behind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createReferenceBackend } from './attention/reference-backend.js';
import { Engine } from './engine.js';
import { randomModel, tinyConfig } from './testing/random-init.js';

const model = randomModel(tinyConfig(), { seed: 12, std: 0.08 });
const engine = () => new Engine(model, { precision: 'bf16', kvDtype: 'bf16', pageSize: 16, cacheKind: 'paged', backend: createReferenceBackend() });
const prompt = Array.from({ length: 150 }, (_, i) => (i * 53 + 7) % 256);

test('a 150-row prefill (heap scratch) ≡ chunks of 40 rows and single rows (arena scratch), bit for bit', () => {
  const V = model.config.vocabSize;
  const whole = engine().forward([{ seqId: 0, tokens: prompt }])[0].logits;
  const chunks = engine();
  for (let i = 0; i < prompt.length; i += 40) {
    const got = chunks.forward([{ seqId: 0, tokens: prompt.slice(i, i + 40) }])[0].logits;
    assert.deepEqual(got, whole.subarray(i * V, Math.min(prompt.length, i + 40) * V), `chunk at ${i}`);
  }
  // alternate: a big step on one sequence, single rows on another, on one engine (shared scratch)
  const mixed = engine();
  const single = engine();
  for (let i = 0; i < 3; i++) {
    const big = mixed.forward([{ seqId: 1, tokens: prompt.slice(i * 50, i * 50 + 50 + 20 * i) }, { seqId: 2, tokens: [prompt[i]] }]);
    const alone = single.forward([{ seqId: 2, tokens: [prompt[i]] }])[0];
    assert.deepEqual(big[1].logits, alone.logits, `single row next to a ${50 + 20 * i}-row prefill`);
    mixed.rollback(1, 0);
  }
});
