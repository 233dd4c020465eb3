/**
 * `--api llama-server` answers /tokenize and /detokenize with llama-server v0.4.0's fields (recorded
 * from the binary built by scripts/llama-server/build.sh): `content` in, and a body without it — vLLM's
 * `prompt` — tokenizes nothing. The probe, which asks the server's shape first, sends `content` there.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { ServerApi } from '../../probe/server-api.js';
import { ProbeClient } from '../../probe/client.js';
import { listen } from '../listen.js';
import { post, testServer } from '../testing.js';

const server = testServer({ apiShape: 'llama-server' });

test('llama-server /tokenize: content and add_special in; prompt (vLLM) gives no tokens; /detokenize answers content', async () => {
  const t = await post(server, '/tokenize', { content: 'ab', add_special: false });
  assert.equal(t.status, 200, t.text);
  assert.deepEqual(t.json, { tokens: [97, 98] });
  assert.deepEqual(
    (await post(server, '/tokenize', { content: 'ab', add_special: true })).json.tokens,
    [256, 97, 98],
  );
  assert.deepEqual((await post(server, '/tokenize', { prompt: 'ab', add_special_tokens: true })).json, {
    tokens: [],
  });
  assert.deepEqual((await post(server, '/detokenize', { tokens: [97, 98] })).json, { content: 'ab' });
});

test('the probe tokenizes through llama-server with its own fields, and an empty answer for a text is a failure', async () => {
  const served = await listen(server.app, '127.0.0.1', 0);
  after(() => served.close(0));
  const api = new ServerApi(new ProbeClient({ baseUrl: served.url, maxRetries: 0 }));
  api.api = 'llama-server';
  const r = await api.tokenize('ab', undefined, { addSpecialTokens: false });
  assert.ok(r.ok, r.ok ? '' : r.error);
  assert.deepEqual(r.value, [97, 98]);
  // the same request shape a vLLM server takes comes back empty from llama-server: never an empty prompt
  api.api = 'openai';
  const wrong = await api.tokenize('ab');
  assert.equal(wrong.ok, false);
  assert.match(wrong.ok ? '' : wrong.error, /returned no tokens for a text of 2 characters/);
});
