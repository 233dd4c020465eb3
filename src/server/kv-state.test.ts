/**
 * The server with prefix caching and a KV budget that runs out: concurrent requests sharing a
 * prefix, n > 1 and a client that goes away each get what they would alone; /metrics says the
 * cache's size and what happened to it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { post, sseEvents, testServer, type Json } from './testing.js';

const sampled = { temperature: 0.8, top_p: 1, top_k: -1 };
const prefix = 'a shared system prompt that spans more than two pages of blocks. ';
const metric = (text: string, name: string) => Number(text.split('\n').find((l) => l.startsWith(name))?.split(' ').pop());

test('prefix caching + a 10-block budget: n = 3 choices, neighbours and a cancelled stream ≡ each request alone; /metrics reports it', async () => {
  const loaded = testServer({ prefixCaching: true, numGpuBlocks: 10 });
  const body = (suffix: string, extra: object = {}) => ({ prompt: prefix + suffix, max_tokens: 12, ignore_eos: true, logprobs: 1, return_token_ids: true, ...sampled, ...extra });
  const gone = new AbortController();
  const cancelled = post(loaded, '/v1/completions', body('cancelled', { stream: true, max_tokens: 40, seed: 9 }), { signal: gone.signal }).catch(() => null);
  const [many, other] = await Promise.all([
    post(loaded, '/v1/completions', body('three choices', { n: 3, seed: 5 })),
    post(loaded, '/v1/completions', body('another suffix', { seed: 6 })),
    new Promise((r) => setTimeout(r, 5)).then(() => gone.abort()),
  ]);
  await cancelled;
  assert.equal(many.status, 200, many.text);
  assert.equal(many.json.choices.length, 3);
  // each choice i is the request alone with seed 5 + i (vLLM's parallel sampling), on a fresh server
  for (const [i, c] of (many.json.choices as Json[]).entries()) {
    const alone = await post(testServer(), '/v1/completions', body('three choices', { seed: 5 + i }));
    assert.equal(c.index, i);
    assert.deepEqual(c.token_ids, alone.json.choices[0].token_ids, `choice ${i}`);
    assert.deepEqual(c.logprobs, alone.json.choices[0].logprobs);
  }
  const alone = await post(testServer(), '/v1/completions', body('another suffix', { seed: 6 }));
  assert.deepEqual(other.json.choices[0].token_ids, alone.json.choices[0].token_ids);
  const m = await (await loaded.app.request('/metrics')).text();
  assert.match(m, /vllm:cache_config_info\{model_name="tiny-test",block_size="16",num_gpu_blocks="10",enable_prefix_caching="True"\} 1/);
  assert.ok(metric(m, 'vllm:prefix_cache_hits_total') >= 3 * 64, 'all but the first of the four reused the shared prefix');
  assert.equal(metric(m, 'vllm:kv_cache_usage_perc'), 0, 'every block is free once the requests are done');
  assert.ok(metric(m, 'vllm:num_preemptions_total') >= 1, 'four sequences of 6 blocks, 4 of them shared, do not fit 10 blocks at once');
});

test('chat with n = 2, streamed: each choice opens with its role and ends with its finish_reason', async () => {
  const s = testServer({ prefixCaching: true });
  const r = await post(s, '/v1/chat/completions', { messages: [{ role: 'user', content: 'hi' }], max_tokens: 5, n: 2, stream: true, seed: 1, ...sampled });
  const events = sseEvents(r.text);
  for (const index of [0, 1]) {
    const mine = events.filter((e) => e.choices[0]?.index === index);
    assert.deepEqual(mine[0].choices[0].delta, { role: 'assistant', content: '' });
    assert.ok(mine[mine.length - 1].choices[0].finish_reason);
  }
  const whole = await post(s, '/v1/chat/completions', { messages: [{ role: 'user', content: 'hi' }], max_tokens: 5, n: 2, seed: 1, ...sampled });
  const streamed = [0, 1].map((i) => events.filter((e) => e.choices[0]?.index === i).map((e) => e.choices[0].delta.content ?? '').join(''));
  assert.deepEqual(streamed, whole.json.choices.map((c: Json) => c.message.content));
});

test('every stateful fault model on, independent requests one at a time: exactly the clean server (the faults need traffic)', async () => {
  const faulty = testServer({ prefixCaching: true, numGpuBlocks: 20, stateFaults: new Set(['stale-prefix-hash', 'abort-frees-shared-blocks', 'prompt-logprobs-chunk-offset']) });
  const clean = testServer();
  for (const [i, prompt] of ['first independent prompt', 'a second, unrelated one', 'and a third that shares nothing'].entries()) {
    const body = { prompt, max_tokens: 10, ignore_eos: true, logprobs: 2, prompt_logprobs: 1, return_token_ids: true, seed: i, ...sampled };
    const [a, b] = [await post(faulty, '/v1/completions', body), await post(clean, '/v1/completions', body)];
    assert.equal(a.status, 200, a.text);
    assert.deepEqual(a.json.choices, b.json.choices);
  }
});
