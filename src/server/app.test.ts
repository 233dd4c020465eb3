/**
 * The server in-process (app.request, no sockets) on a small random model: vLLM response shapes,
 * streamed ≡ non-streamed, the engine's own greedy output, and every error path answering with
 * OpenAI-style JSON and the right status.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createReferenceBackend } from '../engine/attention/reference-backend.js';
import { Engine } from '../engine/engine.js';
import { generate } from '../engine/generate.js';
import { GREEDY } from '../engine/sampling.js';
import { specConfig } from '../engine/speculative/config.js';
import { post, sseEvents, testModel, testServer, type Json } from './testing.js';

const server = testServer();
const greedy = { temperature: 0, top_p: 1, top_k: -1, seed: 0 };
const enc = (s: string) => [256, ...new TextEncoder().encode(s)];
const engineIds = (ids: number[], n: number, logprobs = 0) =>
  generate(new Engine(testModel, { precision: 'bf16', kvDtype: 'bf16', pageSize: 16, cacheKind: 'paged', backend: createReferenceBackend() }), ids, {
    maxTokens: n,
    sampling: GREEDY,
    seed: 0,
    logprobs,
    stopAtEos: false,
  }).tokens;

describe('/v1/completions', () => {
  test('text prompt, greedy: the engine’s tokens, vLLM choice and usage shape', async () => {
    const r = await post(server, '/v1/completions', { prompt: 'Hello there', max_tokens: 8, ignore_eos: true, ...greedy, return_token_ids: true });
    assert.equal(r.status, 200, r.text);
    const want = engineIds(enc('Hello there'), 8);
    const c = r.json.choices[0];
    assert.deepEqual(c.token_ids, want.map((t) => t.id));
    assert.deepEqual(c.prompt_token_ids, enc('Hello there'));
    assert.equal(r.json.object, 'text_completion');
    assert.match(r.json.id, /^cmpl-/);
    assert.equal(r.json.model, 'tiny-test');
    assert.deepEqual(Object.keys(c).sort(), ['finish_reason', 'index', 'logprobs', 'prompt_logprobs', 'prompt_token_ids', 'stop_reason', 'text', 'token_ids']);
    assert.equal(c.finish_reason, 'length');
    assert.equal(c.stop_reason, null);
    assert.deepEqual(r.json.usage, { prompt_tokens: 12, total_tokens: 20, completion_tokens: 8, prompt_tokens_details: null });
  });

  test('token-id prompt, batch of prompts, logprobs with return_tokens_as_token_ids', async () => {
    const a = [256, 72, 105], b = [256, 79, 107, 33];
    const r = await post(server, '/v1/completions', { prompt: [a, b], max_tokens: 5, ignore_eos: true, logprobs: 3, return_tokens_as_token_ids: true, ...greedy });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.choices.length, 2);
    for (const [i, p] of [a, b].entries()) {
      const want = engineIds(p, 5, 3);
      const lp = r.json.choices[i].logprobs;
      assert.equal(r.json.choices[i].index, i);
      assert.deepEqual(lp.tokens, want.map((t) => `token_id:${t.id}`));
      assert.deepEqual(lp.token_logprobs, want.map((t) => t.logprob));
      assert.deepEqual(lp.text_offset.length, 5);
      // top_logprobs: the top 3 plus the chosen token, keyed token_id:N
      lp.top_logprobs.forEach((d: Record<string, number>, t: number) => {
        for (const x of want[t].top) assert.equal(d[`token_id:${x.id}`], x.logprob);
        assert.equal(d[`token_id:${want[t].id}`], want[t].logprob);
      });
    }
  });

  test('echo + logprobs: prompt first (null logprob at position 0), then the generation; echo with max_tokens 0 scores only', async () => {
    const ids = enc('abc');
    const r = await post(server, '/v1/completions', { prompt: ids, max_tokens: 2, echo: true, logprobs: 1, ignore_eos: true, ...greedy });
    assert.equal(r.status, 200, r.text);
    const lp = r.json.choices[0].logprobs;
    assert.equal(lp.tokens.length, ids.length + 2);
    assert.equal(lp.token_logprobs[0], null);
    assert.equal(lp.top_logprobs[0], null);
    assert.ok(lp.token_logprobs[1] < 0);
    assert.ok(r.json.choices[0].text.startsWith('abc'));
    const score = await post(server, '/v1/completions', { prompt: ids, max_tokens: 0, echo: true, logprobs: 1, ...greedy });
    assert.equal(score.status, 200, score.text);
    assert.equal(score.json.choices[0].text, 'abc');
    assert.equal(score.json.choices[0].logprobs.tokens.length, ids.length);
    assert.deepEqual(score.json.choices[0].logprobs.token_logprobs.slice(1), lp.token_logprobs.slice(1, ids.length));
    assert.equal(score.json.usage.completion_tokens, 0);
  });

  test('prompt_logprobs: vLLM shape [null, {"<id>": {logprob, rank, decoded_token}}, …]', async () => {
    const ids = enc('xyz');
    const r = await post(server, '/v1/completions', { prompt: ids, max_tokens: 1, prompt_logprobs: 2, ...greedy });
    assert.equal(r.status, 200, r.text);
    const p = r.json.choices[0].prompt_logprobs;
    assert.equal(p.length, ids.length);
    assert.equal(p[0], null);
    for (let i = 1; i < ids.length; i++) {
      const own = p[i][String(ids[i])];
      assert.ok(own, `position ${i} has the prompt token`);
      assert.ok(Number.isInteger(own.rank) && own.rank >= 1);
      assert.equal(own.decoded_token, String.fromCharCode(ids[i]));
      assert.ok(Object.keys(p[i]).length >= 2 && Object.keys(p[i]).length <= 3);
      for (const v of Object.values(p[i]) as { logprob: number }[]) assert.ok(v.logprob <= 0);
    }
  });

  test('streamed ≡ non-streamed (text, tokens via logprobs, finish) and usage last with include_usage', async () => {
    const body = { prompt: 'Once upon', max_tokens: 12, ignore_eos: true, logprobs: 0, ...greedy };
    const whole = await post(server, '/v1/completions', body);
    const streamed = await post(server, '/v1/completions', { ...body, stream: true, stream_options: { include_usage: true } });
    assert.equal(streamed.status, 200);
    const events = sseEvents(streamed.text);
    const usage = events.pop();
    assert.deepEqual(usage.choices, []);
    assert.deepEqual(usage.usage, { prompt_tokens: 10, total_tokens: 22, completion_tokens: 12 });
    assert.equal(events.map((e) => e.choices[0].text).join(''), whole.json.choices[0].text);
    assert.deepEqual(events.flatMap((e) => e.choices[0].logprobs?.tokens ?? []), whole.json.choices[0].logprobs.tokens);
    assert.equal(events.at(-1).choices[0].finish_reason, 'length');
    assert.ok(events.slice(0, -1).every((e) => e.choices[0].finish_reason === null));
    // the last token and the finish arrive in one chunk, as vLLM streams them: no empty chunk at the end
    assert.ok(events.every((e) => e.choices[0].logprobs.tokens.length > 0));
  });

  test('stop strings: cut before the stop (or kept with include_stop_str_in_output), finish stop + stop_reason; same when streamed', async () => {
    const free = await post(server, '/v1/completions', { prompt: 'stop here', max_tokens: 20, ignore_eos: true, ...greedy });
    const text: string = free.json.choices[0].text;
    const stop = text.slice(5, 7);
    const cut = text.slice(0, text.indexOf(stop));
    const r = await post(server, '/v1/completions', { prompt: 'stop here', max_tokens: 20, ignore_eos: true, stop: [stop], ...greedy });
    assert.equal(r.json.choices[0].text, cut);
    assert.equal(r.json.choices[0].finish_reason, 'stop');
    assert.equal(r.json.choices[0].stop_reason, stop);
    const kept = await post(server, '/v1/completions', { prompt: 'stop here', max_tokens: 20, ignore_eos: true, stop, include_stop_str_in_output: true, ...greedy });
    assert.equal(kept.json.choices[0].text, cut + stop);
    const s = await post(server, '/v1/completions', { prompt: 'stop here', max_tokens: 20, ignore_eos: true, stop: [stop], stream: true, ...greedy });
    const ev = sseEvents(s.text);
    assert.equal(ev.map((e) => e.choices[0].text).join(''), cut);
    assert.equal(ev.at(-1).choices[0].finish_reason, 'stop');
  });

  test('speculative decoding behind the API: same tokens, and /metrics counts drafts and accepted tokens', async () => {
    const spec = testServer({ spec: specConfig('suffix', 7) });
    const body = { prompt: 'abcabcabcabcabc', max_tokens: 24, ignore_eos: true, ...greedy };
    const plain = await post(server, '/v1/completions', body);
    const r = await post(spec, '/v1/completions', body);
    assert.equal(r.json.choices[0].text, plain.json.choices[0].text);
    const metrics = await (await spec.app.request('/metrics')).text();
    const value = (name: string) => Number(new RegExp(`^${name}\\{[^}]*\\} (\\d+)$`, 'm').exec(metrics)?.[1]);
    assert.ok(value('vllm:spec_decode_num_drafts_total') > 0);
    assert.ok(value('vllm:spec_decode_num_accepted_tokens_total') > 0);
    assert.equal(value('vllm:generation_tokens_total'), 24);
  });
});

describe('/v1/chat/completions', () => {
  test('message shape, logprobs.content entries, streamed ≡ non-streamed', async () => {
    const body = { messages: [{ role: 'user', content: 'Hi' }], max_completion_tokens: 6, ignore_eos: true, logprobs: true, top_logprobs: 2, ...greedy };
    const r = await post(server, '/v1/chat/completions', body);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.object, 'chat.completion');
    const ch = r.json.choices[0];
    assert.equal(ch.message.role, 'assistant');
    assert.equal(ch.logprobs.content.length, 6);
    const e = ch.logprobs.content[0];
    assert.deepEqual(Object.keys(e).sort(), ['bytes', 'logprob', 'token', 'top_logprobs']);
    assert.equal(e.top_logprobs.length, 2);
    assert.deepEqual(Object.keys(e.top_logprobs[0]).sort(), ['bytes', 'logprob', 'token']);
    const s = await post(server, '/v1/chat/completions', { ...body, stream: true });
    const ev = sseEvents(s.text);
    assert.deepEqual(ev[0].choices[0].delta, { role: 'assistant', content: '' });
    assert.equal(ev.map((x) => x.choices[0].delta.content ?? '').join(''), ch.message.content);
    assert.equal(ev.at(-1).choices[0].finish_reason, 'length');
    assert.ok(ev.at(-1).choices[0].logprobs.content.length > 0, 'the last token comes with the finish');
    assert.equal(ev.filter((x) => x.choices[0].finish_reason !== null).length, 1);
    assert.ok(ev.every((x) => x.object === 'chat.completion.chunk'));
  });

  test('the documented chat template, checked through /tokenize', async () => {
    const r = await post(server, '/tokenize', { messages: [{ role: 'system', content: 'S' }, { role: 'user', content: 'U' }] });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.tokens, enc('System: S\n\nUser: U\n\nAssistant:'));
  });
});

describe('tokenizer API and info endpoints', () => {
  test('/tokenize, /detokenize, /v1/models, /health', async () => {
    const t = await post(server, '/tokenize', { prompt: 'hé', return_token_strs: true });
    assert.deepEqual(t.json, { count: 4, max_model_len: 256, tokens: [256, 104, 0xc3, 0xa9], token_strs: ['<bos>', 'h', '<0xC3>', '<0xA9>'] });
    const d = await post(server, '/detokenize', { tokens: [256, 104, 0xc3, 0xa9] });
    assert.deepEqual(d.json, { prompt: 'hé' });
    const m = (await (await server.app.request('/v1/models')).json()) as Json;
    assert.equal(m.data[0].id, 'tiny-test');
    assert.equal(m.data[0].max_model_len, 256);
    assert.equal((await server.app.request('/health')).status, 200);
  });
});

describe('errors: OpenAI-style JSON with the right status', () => {
  const expectError = async (status: number, path: string, body: unknown, re: RegExp, s = server) => {
    const r = await post(s, path, body);
    assert.equal(r.status, status, r.text);
    assert.equal(r.json.error.code, status);
    assert.equal(typeof r.json.error.type, 'string');
    assert.match(r.json.error.message, re);
  };
  test('malformed JSON, a body that is not an object, wrong types, missing fields', async () => {
    await expectError(400, '/v1/completions', '{"prompt": "x",', /malformed JSON/);
    await expectError(400, '/v1/completions', '[1,2]', /JSON object/);
    await expectError(400, '/v1/completions', '', /empty/);
    await expectError(400, '/v1/completions', { prompt: 'x', max_tokens: 'ten' }, /max_tokens/);
    await expectError(400, '/v1/completions', { prompt: 5 }, /prompt/);
    await expectError(400, '/v1/completions', { max_tokens: 3 }, /prompt/);
    await expectError(400, '/v1/chat/completions', { messages: 'hi' }, /messages/);
    await expectError(400, '/v1/chat/completions', { messages: [{ role: 'robot', content: 'x' }] }, /role/);
    await expectError(400, '/v1/completions', { prompt: 'x', temperature: -1 }, /temperature/);
  });
  test('unsupported values are refused, not ignored', async () => {
    await expectError(400, '/v1/completions', { prompt: 'x', best_of: 2 }, /best_of: only 1/);
    await expectError(400, '/v1/completions', { prompt: 'x', n: 0 }, /n:/);
    await expectError(400, '/v1/completions', { prompt: 'x', n: 65 }, /at most 64 choices/);
    await expectError(400, '/v1/completions', { prompt: 'x', presence_penalty: 0.5 }, /penalties/);
    await expectError(400, '/v1/completions', { prompt: 'x', logprobs: 21 }, /max_logprobs \(20\)/);
    await expectError(400, '/v1/completions', { prompt: 'x', prompt_logprobs: 1, stream: true }, /stream/);
    await expectError(400, '/v1/completions', { prompt: [256, 300] }, /out of vocabulary/);
  });
  test('404 unknown model and route, 405 wrong method', async () => {
    await expectError(404, '/v1/completions', { model: 'gpt-4', prompt: 'x' }, /`gpt-4` does not exist/);
    await expectError(404, '/v1/nothing', {}, /no route/);
    const r = await server.app.request('/v1/completions');
    assert.equal(r.status, 405);
  });
  test('400 when prompt + max_tokens exceeds max_model_len (vLLM message)', async () => {
    await expectError(400, '/v1/completions', { prompt: Array(250).fill(65), max_tokens: 10 }, /maximum context length is 256 tokens and your request has 250 input tokens \(10 > 256 - 250\)/);
    await expectError(400, '/v1/completions', { prompt: Array(256).fill(65), max_tokens: 1 }, /maximum context length is 256 tokens/);
  });
  test('413 for a body over the cap', async () => {
    const small = testServer({ limits: { maxBodyBytes: 1000 } });
    await expectError(413, '/v1/completions', { prompt: 'x'.repeat(2000) }, /exceeds 1000 bytes/, small);
  });
  test('503 while loading or draining', async () => {
    const s = testServer();
    s.ctx.state = 'loading';
    await expectError(503, '/v1/completions', { prompt: 'x' }, /loading/, s);
    assert.equal((await s.app.request('/health')).status, 503);
    s.ctx.state = 'draining';
    await expectError(503, '/v1/chat/completions', { messages: [{ role: 'user', content: 'x' }] }, /shutting down/, s);
  });
});
