/**
 * Two places where the engine server answered differently from vLLM 0.23.0: stream_options on a
 * request that does not stream (vLLM: 400, "Stream options can only be defined when
 * `stream=True`.", vllm/entrypoints/openai/completion/protocol.py and
 * chat_completion/protocol.py) and GET /version (vLLM: {"version": …},
 * vllm/entrypoints/serve/instrumentator/basic.py).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VERSION } from '../core/version.js';
import { post, testServer } from './testing.js';

const server = testServer();

test('stream_options without stream is a 400 naming the field, on both generation endpoints', async () => {
  for (const [path, body] of [
    ['/v1/completions', { prompt: 'x', max_tokens: 2, stream_options: { include_usage: true } }],
    ['/v1/chat/completions', { messages: [{ role: 'user', content: 'x' }], max_tokens: 2, stream: false, stream_options: { include_usage: true } }],
  ] as const) {
    const r = await post(server, path, body);
    assert.equal(r.status, 400, `${path}: ${r.text}`);
    assert.match(r.json.error.message, /Stream options can only be defined when `stream=True`\./);
    assert.equal(r.json.error.param, 'stream_options');
  }
});

test('stream_options with stream, or empty without it, is accepted (as in Python, {} counts as not given)', async () => {
  const streamed = await post(server, '/v1/completions', { prompt: 'x', max_tokens: 2, stream: true, stream_options: { include_usage: true } });
  assert.equal(streamed.status, 200, streamed.text);
  const empty = await post(server, '/v1/completions', { prompt: 'x', max_tokens: 2, stream_options: {} });
  assert.equal(empty.status, 200, empty.text);
});

test('GET /version answers {"version": …} like vLLM', async () => {
  const r = await server.app.request('/version');
  assert.equal(r.status, 200);
  assert.deepEqual(await r.json(), { version: VERSION });
});
