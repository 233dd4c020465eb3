import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isUserError } from '../../core/errors.js';
import { comparePromptLogprobs } from '../../oracle/prompt-logprobs.js';
import type { ScoredToken } from '../../oracle/types.js';
import { parseCacheConfig } from './capacity.js';
import { featureShares, type WorkloadRecord } from './report.js';
import { parseTrace } from './trace-file.js';
import { buildTrace, CANCEL_AFTER_TOKENS, type TraceShape } from './trace.js';

const pool = Array.from({ length: 4000 }, (_, i) => (i * 37) % 250);
const shape: TraceShape = { capacity: { blockSize: 16, numGpuBlocks: 40 }, maxModelLen: 512, maxTokens: 16, seed: 3, rounds: 2, pool };

test('cache_config_info: the KV capacity from the metric labels; missing sizes are unknown, not guessed', () => {
  const text = '# HELP x\nvllm:cache_config_info{model_name="m",block_size="16",num_gpu_blocks="40",enable_prefix_caching="True"} 1\n';
  assert.deepEqual(parseCacheConfig(text), { blockSize: 16, numGpuBlocks: 40, prefixCaching: true });
  assert.equal(parseCacheConfig('vllm:cache_config_info{block_size="16"} 1'), undefined);
  assert.equal(parseCacheConfig('vllm:num_requests_running 0'), undefined);
});

test('trace: each round evicts a shared prefix with a burst past capacity, cancels a neighbour mid-decode, and asks for prompt logprobs', () => {
  const t = buildTrace(shape);
  assert.equal(t.rounds.length, 2);
  for (const [i, round] of t.rounds.entries()) {
    const by = new Map(round.map((q) => [q.id, q]));
    const first = by.get(`r${i}-evict-first`)!;
    const again = by.get(`r${i}-evict-again-0`)!;
    const prefix = 3 * 16 + (i % 2 === 0 ? 0 : 1);
    assert.deepEqual(again.prompt.slice(0, 48), first.prompt.slice(0, 48), 'the family shares its prefix');
    if (i % 2 === 1) assert.ok(again.features.includes('unaligned-prefix'));
    assert.ok(prefix <= 48 || first.prompt.length > prefix);
    const burst = round.filter((q) => q.features.includes('burst-past-capacity'));
    const burstTokens = burst.reduce((n, q) => n + q.prompt.length + q.maxTokens, 0);
    assert.ok(burstTokens > 40 * 16, `the burst (${burstTokens} tokens) goes past the cache (640)`);
    assert.ok(again.start.length === burst.length && again.start.every((c) => c.event === 'done'));
    const cancelled = by.get(`r${i}-cancelled`)!;
    assert.equal(cancelled.cancelAfterTokens, CANCEL_AFTER_TOKENS);
    const neighbours = round.filter((q) => q.features.includes('cancelled-neighbour'));
    assert.equal(neighbours.length, 2);
    for (const n of neighbours) {
      assert.deepEqual(n.prompt.slice(0, 48), cancelled.prompt.slice(0, 48));
      assert.ok(n.maxTokens > CANCEL_AFTER_TOKENS, 'still decoding when the neighbour is cancelled');
      assert.ok((n.start[0].tokens ?? 0) < CANCEL_AFTER_TOKENS);
    }
    assert.equal(round.filter((q) => q.promptLogprobs).length, 2);
    for (const q of round) assert.ok(q.prompt.length + q.maxTokens < 512, `${q.id} fits max_model_len`);
  }
  assert.deepEqual(buildTrace(shape), t, 'seeded');
  assert.notDeepEqual(buildTrace({ ...shape, seed: 4 }).rounds[0][0].prompt, t.rounds[0][0].prompt);
});

test('trace file: a saved trace loads back identical; broken, foreign or circular traces are clear errors', () => {
  const t = buildTrace(shape);
  assert.deepEqual(parseTrace(JSON.stringify(t), 't.json'), t);
  const bad = (text: string, pattern: RegExp) =>
    assert.throws(() => parseTrace(text, 't.json'), (e: unknown) => isUserError(e) && pattern.test((e as Error).message));
  bad('{"format": ', /not valid JSON/);
  bad(JSON.stringify({ ...t, format: 'other' }), /not a workload trace: format/);
  bad(JSON.stringify({ ...t, rounds: [[{ ...t.rounds[0][0], prompt: [-1] }]] }), /rounds\.0\.0\.prompt/);
  const [a, b] = t.rounds[0];
  bad(JSON.stringify({ ...t, rounds: [[{ ...a, start: [{ after: b.id, event: 'done' }] }, { ...b, start: [{ after: a.id, event: 'done' }] }]] }), /waits, directly or not, on itself/);
  bad(JSON.stringify({ ...t, rounds: [[{ ...a, start: [{ after: 'nobody', event: 'done' }] }]] }), /waits for nobody/);
});

test('prompt logprobs: benign noise passes, a one-row shift is corrupt', () => {
  const scored = (lps: number[]): ScoredToken[] => lps.map((logprob, i) => ({ token: i, logprob, rank: 1, topLogprob: logprob, topToken: i }));
  const ref = Array.from({ length: 60 }, (_, i) => -1 - Math.sin(i) * 3 - 3);
  assert.equal(comparePromptLogprobs(scored(ref), scored(ref.map((x, i) => x + 0.05 * Math.cos(i)))).corrupt, false);
  assert.equal(comparePromptLogprobs(scored(ref), scored(ref.map((x, i) => (i === 7 ? x - 2 : x)))).corrupt, false, 'one borderline position never decides');
  const shifted = comparePromptLogprobs(scored(ref), scored([...ref.slice(0, 16), ...ref.slice(17), -3]));
  assert.equal(shifted.corrupt, true);
  assert.equal(shifted.offPositions[0], 17);
});

test('features: what every corrupt request shares, the rarest among judged first', () => {
  const rec = (id: string, outcome: WorkloadRecord['outcome'], features: WorkloadRecord['features']): WorkloadRecord => ({ id, round: 0, features, promptLength: 1, maxTokens: 1, outcome, reasons: [], errors: [] });
  const { shared, features } = featureShares([
    rec('a', 'corrupt', ['prefix-hit', 'after-eviction']),
    rec('b', 'corrupt', ['prefix-hit', 'after-eviction']),
    rec('c', 'identical', ['prefix-hit', 'cancelled-neighbour']),
    rec('d', 'failed', ['after-eviction']),
    rec('e', 'cancelled', []),
  ]);
  assert.deepEqual(shared, ['after-eviction', 'prefix-hit']);
  assert.deepEqual(features.find((f) => f.feature === 'after-eviction'), { feature: 'after-eviction', corrupt: 2, judged: 2 });
});
