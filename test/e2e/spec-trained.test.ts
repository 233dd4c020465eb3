/**
 * Speculative decoding on the trained model (models/tiny-swa, window 128, calibrated FP8 k/v scales):
 *   1. MTP drafts (the checkpoint's head, chained) ≡ plain greedy for k ∈ {1, 4, 7, 16, 64}, with the
 *      reference backend and with sm100-fixed — and the head's drafts really are accepted;
 *   2. the canonical case: sm100-affected + FP8 KV + Q quantization disabled + MTP k = 7 on a prompt past
 *      the window diverges from the same settings without speculation; removing any one of the three
 *      (BF16 KV, Q quantization on, k = 3 → q_len_per_req 4) gives no divergence.
 * The prompt is held-out prose (data/heldout-prose.txt, bytes 20000–20199, BOS first).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { emulatedEngine, type EmulatedSetting } from '../../src/engine/testing/emulated-engine.js';
import { generate } from '../../src/engine/generate.js';
import { loadModel } from '../../src/engine/load-model.js';
import { GREEDY } from '../../src/engine/sampling.js';
import { specConfig } from '../../src/engine/speculative/config.js';
import { speculativeGenerate } from '../../src/engine/testing/speculative-generate.js';
import { repoRoot } from '../helpers/cli.js';

const model = loadModel(join(repoRoot, 'models/tiny-swa'));
const text = readFileSync(join(repoRoot, 'data/heldout-prose.txt'));
const prompt = [256, ...text.subarray(20000, 20199)];

type Setting = EmulatedSetting;
const engineFor = (s: Setting, k: number) => emulatedEngine(model, s, k);
const plainIds = (s: Setting, n: number) => generate(engineFor(s, 0), prompt, { maxTokens: n, sampling: GREEDY, seed: 0, logprobs: 0, stopAtEos: false }).tokens.map((t) => t.id);
const mtpRun = (s: Setting, k: number, n: number) => speculativeGenerate(engineFor(s, k), prompt, { spec: specConfig('mtp', k), maxTokens: n });

describe('MTP speculative greedy ≡ plain greedy on the trained model', () => {
  for (const preset of ['reference', 'sm100-fixed'] as const)
    test(preset, () => {
      const s: Setting = { preset, kvDtype: 'fp8_e4m3', disableQ: false };
      const plain = plainIds(s, 24);
      for (const k of [1, 4, 7, 16, 64]) {
        const r = mtpRun(s, k, 24);
        assert.deepEqual(r.tokens.map((t) => t.id), plain, `k=${k}`);
        assert.ok(r.spec.acceptedTokens > 0, `k=${k}: the MTP head's drafts were never accepted`);
      }
    });
});

describe('the canonical combination diverges; removing any one of its three parts does not', () => {
  const canonical: Setting = { preset: 'sm100-affected', kvDtype: 'fp8_e4m3', disableQ: true };
  const N = 32;
  const firstDiff = (s: Setting, k: number) => {
    const plain = plainIds(s, N);
    return mtpRun(s, k, N).tokens.findIndex((t, i) => t.id !== plain[i]);
  };
  test('sm100-affected + FP8 KV + Q quantization disabled + k = 7 → diverges', () => {
    assert.ok(firstDiff(canonical, 7) >= 0, 'no divergence in the canonical case');
  });
  test('BF16 KV → identical', () => assert.equal(firstDiff({ ...canonical, kvDtype: 'bf16' }, 7), -1));
  test('Q quantization on (FP8 query) → identical', () => assert.equal(firstDiff({ ...canonical, disableQ: false }, 7), -1));
  test('k = 3 (q_len_per_req 4) → identical', () => assert.equal(firstDiff(canonical, 3), -1));
});
