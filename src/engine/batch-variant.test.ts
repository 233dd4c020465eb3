/**
 * --batch-variant-numerics at the engine level: a sequence's logits depend (slightly) on what else is
 * in the step; alone they equal the batch-invariant engine; the default engine stays invariant.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createReferenceBackend } from './attention/reference-backend.js';
import { segmentBounds } from './batch-variant.js';
import { Engine } from './engine.js';
import { randomModel, tinyConfig } from './testing/random-init.js';

const model = randomModel(tinyConfig({ hiddenSize: 128, intermediateSize: 256, headDim: 32 }), { seed: 8, std: 0.05 });
const engine = (batchVariantNumerics: boolean) =>
  // fp32 activations: nothing rounds the float32 re-association away, so one forward shows it
  // (in bf16 mode it shows where a BF16 rounding flips, and grows over many steps: test/e2e/server-batch.test.ts)
  new Engine(model, { precision: 'fp32', kvDtype: 'fp32', pageSize: 16, cacheKind: 'paged', backend: createReferenceBackend(), batchVariantNumerics });
const a = [256, ...new TextEncoder().encode('a prompt of some length, long enough')];
const b = [256, ...new TextEncoder().encode('another one')];

test('split points: none for a single row, else a 16-float boundary inside the row that moves with the row count', () => {
  assert.deepEqual(segmentBounds(1, 256), [0, 256]);
  assert.deepEqual(segmentBounds(2, 256), [0, 48, 256]);
  assert.deepEqual(segmentBounds(3, 256), [0, 64, 256]);
  assert.deepEqual(segmentBounds(16, 256), [0, 32, 256]); // 16 mod 15 = 1
  assert.deepEqual(segmentBounds(5, 20), [0, 16, 20]);
  assert.deepEqual(segmentBounds(5, 16), [0, 16]);
});

test('batched with another sequence, logits move by a little; a lone one-row step equals the invariant engine', () => {
  const V = model.config.vocabSize;
  const aloneInvariant = engine(false).forward([{ seqId: 1, tokens: [a[0]] }])[0].logits;
  const aloneVariant = engine(true).forward([{ seqId: 1, tokens: [a[0]] }])[0].logits;
  assert.deepEqual(aloneVariant, aloneInvariant, 'a one-row step has one segment: identical');

  const invariant = engine(false);
  const inv = invariant.forward([{ seqId: 1, tokens: a }, { seqId: 2, tokens: b }])[0].logits;
  const invAlone = engine(false).forward([{ seqId: 1, tokens: a }])[0].logits;
  assert.deepEqual(inv, invAlone, 'default engine: batch composition changes nothing');

  const together = engine(true).forward([{ seqId: 1, tokens: a }, { seqId: 2, tokens: b }])[0].logits;
  const alone = engine(true).forward([{ seqId: 1, tokens: a }])[0].logits; // a.length rows: its own segment count
  let maxAbs = 0;
  let differ = 0;
  for (let i = 0; i < together.length; i++) {
    const d = Math.abs(together[i] - alone[i]);
    maxAbs = Math.max(maxAbs, d);
    if (d > 0) differ++;
  }
  assert.ok(differ > 0, 'batch-variant numerics changed nothing');
  // float32 re-association: ~1e-7 relative per matmul, through 3 layers stays far below 1e-3 on logits of magnitude ~1
  assert.ok(maxAbs < 1e-3, `max |Δlogit| ${maxAbs}`);
  // the greedy choice is the same at almost every position
  let sameArgmax = 0;
  const rows = a.length;
  for (let r = 0; r < rows; r++) {
    const arg = (x: Float32Array) => x.subarray(r * V, (r + 1) * V).reduce((best, v, i, arr) => (v > arr[best] ? i : best), 0);
    if (arg(together) === arg(alone)) sameArgmax++;
  }
  assert.ok(sameArgmax >= rows - 2, `${sameArgmax}/${rows} positions keep their argmax`);
});
