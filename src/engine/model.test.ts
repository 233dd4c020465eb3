/**
 * mtpStep runs the forward's own MLP block and output head: in bf16 mode every tensor it stores is
 * BF16, the soft-capped logits included (the head rounds after the cap, as the forward does), and
 * with the same kernels it gives the same bits whichever RunState it borrows.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { roundToBf16 } from '../numerics/bf16.js';
import { createReferenceBackend } from './attention/reference-backend.js';
import { Engine } from './engine.js';
import { mtpStep, RunState } from './model.js';
import { randomModel, tinyConfig } from './testing/random-init.js';

const model = randomModel(tinyConfig({ finalLogitSoftcap: 5 }), { seed: 21, std: 0.08 });
const engine = new Engine(model, { precision: 'bf16', kvDtype: 'bf16', pageSize: 16, cacheKind: 'paged', backend: createReferenceBackend(), kernels: 'js' });
const [step] = engine.forward([{ seqId: 1, tokens: [256, 72, 101, 108, 108, 111] }]);
const hidden = step.hidden.subarray(5 * model.config.hiddenSize);

test('bf16 mode: the MTP logits are BF16 after the soft-cap, like the forward logits', () => {
  const isBf16 = (x: number) => Object.is(roundToBf16(x), x);
  assert.ok(step.logits.every(isBf16), 'forward logits');
  const { logits, g } = engine.mtpStep(hidden, 33)!;
  assert.ok(logits.every((x) => Math.abs(x) < 5), 'soft-capped');
  assert.ok(logits.every(isBf16), 'MTP logits');
  assert.ok(g.every(isBf16), 'MTP hidden g');
});

test('the MTP step gives the same bits on the engine state as on a fresh one', () => {
  const a = engine.mtpStep(hidden, 33)!;
  const b = mtpStep(model, model.weights.mtp!, hidden, 33, 'bf16', new RunState(model.config));
  assert.deepEqual(a.logits, b.logits);
  assert.deepEqual(a.g, b.g);
});
