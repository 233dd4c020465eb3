/**
 * Speculative greedy ≡ plain greedy, token for token, for every drafter and k ∈ {1, 4, 7, 16, 64},
 * with the reference backend and with sm100-fixed (FlashInfer routing, fixed bookkeeping, FP8 KV,
 * FP8 query). Small random model (window 16) and prompts past the window, so verify steps run the
 * spec-as-decode path with rows whose windows start on page boundaries. The runs must actually
 * accept drafts (else the comparison proves little): checked for ngram and suffix. A random MTP head
 * drafts nonsense, so every MTP draft is rejected here — the rejection/rollback path; MTP with accepted
 * drafts is checked on the trained model (test/e2e/spec-trained.test.ts).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createBackend, presetSettings, type EmulationPreset } from '../emulate.js';
import { Engine } from '../engine.js';
import { generate } from '../generate.js';
import { randomModel, tinyConfig } from '../testing/random-init.js';
import { GREEDY } from '../sampling.js';
import { specConfig, type SpecMethod } from './config.js';
import { speculativeGenerate } from '../testing/speculative-generate.js';

const scales = [
  { q: 1, k: 0.02, v: 0.015 },
  { q: 1, k: 0.03, v: 0.01 },
  { q: 1, k: 0.015, v: 0.02 },
];
const model = randomModel(tinyConfig(), { seed: 11, scales, std: 0.08 });
const text = 'the cat sat on the mat. the cat sat on the hat. the dog sat on the mat. the cat';
const prompt = [256, ...new TextEncoder().encode(text)];
const MAX_TOKENS = 40;

const engineFor = (preset: EmulationPreset, k: number) =>
  new Engine(model, {
    precision: 'bf16',
    kvDtype: 'fp8_e4m3',
    pageSize: 16,
    cacheKind: 'paged',
    backend: createBackend(presetSettings(preset)),
    numSpeculativeTokens: k,
  });

for (const preset of ['reference', 'sm100-fixed'] as const)
  describe(`spec ≡ plain greedy (${preset}, FP8 KV)`, () => {
    const plain = generate(engineFor(preset, 0), prompt, { maxTokens: MAX_TOKENS, sampling: GREEDY, seed: 0, logprobs: 0, stopAtEos: false }).tokens.map((t) => t.id);
    for (const method of ['ngram', 'suffix', 'mtp'] as SpecMethod[])
      test(method, () => {
        let accepted = 0;
        let drafted = 0;
        for (const k of [1, 4, 7, 16, 64]) {
          const cfg = specConfig(method, k, { promptLookupMin: 2, promptLookupMax: 4, suffix: { maxSpecFactor: 4 } });
          const r = speculativeGenerate(engineFor(preset, k), prompt, { spec: cfg, maxTokens: MAX_TOKENS });
          assert.deepEqual(r.tokens.map((t) => t.id), plain, `${method} k=${k}`);
          assert.equal(r.finish.reason, 'length');
          accepted += r.spec.acceptedTokens;
          drafted += r.spec.draftTokens;
          if (method !== 'mtp') assert.ok(r.steps < MAX_TOKENS, `${method} k=${k}: ${r.steps} steps for ${MAX_TOKENS} tokens`);
        }
        if (method === 'mtp') assert.ok(drafted > 0, 'mtp: no drafts');
        else assert.ok(accepted > 0, `${method}: no draft was ever accepted`);
      });
  });

test('logprobs of speculative output equal plain decoding (the same rows, whatever the step shape)', () => {
  const plain = generate(engineFor('reference', 0), prompt, { maxTokens: 20, sampling: GREEDY, seed: 0, logprobs: 3, stopAtEos: false }).tokens;
  const spec = speculativeGenerate(engineFor('reference', 7), prompt, { spec: specConfig('suffix', 7), maxTokens: 20, logprobs: 3 }).tokens;
  assert.deepEqual(spec.map((t) => [t.id, t.logprob, t.top]), plain.map((t) => [t.id, t.logprob, t.top]));
});
