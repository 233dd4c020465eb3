/**
 * Sampling penalties as vLLM defines them, and the specdec-penalties-dropped fault model: with the
 * fix (default) speculative greedy decoding with penalties emits exactly what plain greedy decoding
 * with the same penalties emits; with the fault model on it does not (vllm#18902), while without
 * penalties the two paths agree either way.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createBackend, presetSettings } from './emulate.js';
import { Engine } from './engine.js';
import { randomModel, tinyConfig } from './testing/random-init.js';
import { GREEDY } from './sampling.js';
import { NO_PENALTIES, PenaltyHistory, penaltyProblem, type PenaltyParams } from './sampling-penalties.js';
import type { LogprobsMode } from './processed-logprobs.js';
import { Scheduler } from './scheduler.js';
import type { EmittedToken } from './sequence.js';
import { specConfig, type SpecConfig } from './speculative/config.js';

test('repetition on prompt ∪ output (divide positive, multiply negative), then frequency and presence on the output only', () => {
  const h = new PenaltyHistory([0, 1]);
  h.append(2);
  h.append(2);
  const logits = Float32Array.from([2, -1, 0.5, 3, -0.5]);
  const out = h.penalize(logits, { repetition: 2, frequency: 0.5, presence: 0.25 });
  // 0: prompt, 2/2 · 1: prompt, −1·2 · 2: output ×2, 0.5/2 − 0.5·2 − 0.25 · 3, 4: unseen
  assert.deepEqual(Array.from(out), [1, -2, -1, 3, -0.5]);
  assert.deepEqual(Array.from(logits), [2, -1, 0.5, 3, -0.5], 'the logits row is not changed in place');
  // pending drafts count as output after the appended tokens
  const withDraft = h.penalize(logits, { repetition: 1, frequency: 1, presence: 0 }, [3, 3]);
  assert.deepEqual(Array.from(withDraft), [2, -1, -1.5, 1, -0.5]);
  // float32 as vLLM's tensors: x · fround(1/1.3), not x / 1.3 in float64
  const r = h.penalize(Float32Array.from([1.7]), { repetition: 1.3, frequency: 0, presence: 0 }, [0]);
  assert.equal(r[0], Math.fround(Math.fround(1.7) * Math.fround(1 / Math.fround(1.3))));
  assert.deepEqual(Array.from(h.penalize(logits, NO_PENALTIES)), Array.from(logits));
});

test('vLLM’s ranges: presence and frequency in [−2, 2], repetition finite and > 0', () => {
  assert.equal(penaltyProblem({ repetition: 1.2, frequency: -2, presence: 2 }), undefined);
  assert.match(penaltyProblem({ repetition: 1, frequency: 0, presence: 2.5 }) ?? '', /presence_penalty must be in \[-2, 2\]/);
  assert.match(penaltyProblem({ repetition: 1, frequency: -3, presence: 0 }) ?? '', /frequency_penalty/);
  assert.match(penaltyProblem({ repetition: 0, frequency: 0, presence: 0 }) ?? '', /greater than zero/);
  assert.match(penaltyProblem({ repetition: Infinity, frequency: 0, presence: 0 }) ?? '', /finite/);
});

const model = randomModel(tinyConfig(), { seed: 11, std: 0.08 });
const text = 'the cat sat on the mat. the cat sat on the hat. the dog sat on the mat. the cat';
const prompt = [256, ...new TextEncoder().encode(text)];
const penalties: PenaltyParams = { repetition: 1.05, frequency: 0.1, presence: 0.05 };

function run(spec: SpecConfig | null, penalties: PenaltyParams, logprobsMode?: LogprobsMode) {
  const engine = new Engine(model, {
    precision: 'bf16',
    kvDtype: 'bf16',
    pageSize: 16,
    cacheKind: 'paged',
    backend: createBackend(presetSettings('reference')),
    numSpeculativeTokens: spec?.numSpeculativeTokens ?? 0,
  });
  const scheduler = new Scheduler(engine, { spec, maxNumSeqs: 1, maxModelLen: 256 });
  const tokens: EmittedToken[] = [];
  scheduler.submit(
    { promptIds: prompt, maxTokens: 40, sampling: GREEDY, seed: 0, ignoreEos: true, penalties, logprobs: 3, ...(logprobsMode ? { logprobsMode } : {}) },
    { onTokens: (t) => tokens.push(...t), onFinish: () => {} },
  );
  scheduler.runToCompletion();
  return { ids: tokens.map((t) => t.id), tokens, accepted: scheduler.counters.specAcceptedTokens };
}

test('speculative greedy with penalties ≡ plain greedy with penalties; the fault model drops them in verify steps', () => {
  const ngram = specConfig('ngram', 4, { promptLookupMin: 2, promptLookupMax: 4 });
  const plain = run(null, penalties).ids;
  assert.notDeepEqual(plain, run(null, NO_PENALTIES).ids, 'the penalty changes the greedy output (else the test proves nothing)');
  const fixed = run(ngram, penalties);
  assert.ok(fixed.accepted > 0, 'drafts were accepted');
  assert.deepEqual(fixed.ids, plain);

  const faulty = run({ ...ngram, faultModel: "specdec-penalties-dropped" }, penalties);
  assert.ok(faulty.accepted > 0);
  assert.notDeepEqual(faulty.ids, plain, 'with the fault model the penalties are lost in verify steps');
  // without penalties the fault model changes nothing
  assert.deepEqual(run({ ...ngram, faultModel: 'specdec-penalties-dropped' }, NO_PENALTIES).ids, run(null, NO_PENALTIES).ids);
});

test('processed_logprobs report the distribution the penalized greedy choice came from; raw ones do not', () => {
  const processed = run(null, penalties, 'processed_logprobs').tokens;
  assert.ok(processed.every((t) => t.top[0].id === t.id), 'greedy picks the top processed token every time');
  const raw = run(null, penalties).tokens;
  assert.deepEqual(raw.map((t) => t.id), processed.map((t) => t.id), 'the mode changes what is reported, not what is chosen');
  assert.ok(raw.some((t) => t.top[0].id !== t.id), 'under raw log-probabilities some penalized choices are not the top token');
});
