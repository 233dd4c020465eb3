/**
 * The onnxruntime anchor computes the engine's model: the exported decode step (decode-graph.ts),
 * fed the engine's own KV cache, gives the logits of the engine's exact mode (float32 weights, float64
 * accumulation, fp32 KV) within 1e-4 — onnxruntime accumulates in float32, so the bound is float32
 * rounding over dot products of ≤ 768 terms on logits of magnitude ~1, not bit equality. A window
 * shorter than the context checks that both attend the same keys.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createReferenceBackend } from '../../src/engine/attention/reference-backend.js';
import { Engine } from '../../src/engine/engine.js';
import { randomModel, tinyConfig } from '../../src/engine/testing/random-init.js';
import { ortDecode } from './ort-decode.js';

test('the ONNX decode step matches the engine exact mode within 1e-4 (2 sequences, past the window)', async () => {
  const model = randomModel(tinyConfig({ slidingWindow: 16, maxPositions: 128 }), { seed: 5, std: 0.08 });
  const engine = new Engine(model, { precision: 'fp32', kvDtype: 'fp32', pageSize: 16, cacheKind: 'contiguous', backend: createReferenceBackend(), kernels: 'js' });
  const prompts = [0, 1].map((s) => Array.from({ length: 40 }, (_, i) => (i * (7 + s) + s) % 256));
  engine.forward(prompts.map((tokens, seqId) => ({ seqId, tokens })));
  const next = [17, 99];
  const ort = await ortDecode(model);
  const got = await ort.run(ort.feeds(engine.cache, [0, 1], next));
  const want = engine.forward(next.map((t, seqId) => ({ seqId, tokens: [t] })));
  const V = model.config.vocabSize;
  let worst = 0;
  want.forEach((r, b) => {
    for (let i = 0; i < V; i++) worst = Math.max(worst, Math.abs(r.logits[i] - got[b * V + i]));
  });
  assert.ok(worst <= 1e-4, `max |Δlogit| ${worst}`);
  await ort.session.release();
});
