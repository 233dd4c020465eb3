/**
 * The official `openai` client against `faultline engine serve` on the trained model
 * (models/tiny-swa): completions and chat, streamed and not; streamed ≡ non-streamed greedy output;
 * token-id prompts, logprobs, echo and prompt_logprobs in vLLM's shapes; two concurrent requests
 * give each the tokens it gets alone.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startServer, type ServerProcess } from './server-harness.js';

let server: ServerProcess;
let client: OpenAI;
const greedy = { temperature: 0, seed: 0 };

before(async () => {
  server = await startServer(['--model', 'models/tiny-swa', '--served-model-name', 'tiny-swa']);
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused', maxRetries: 0, timeout: 60_000 });
});
after(() => server?.stop());

describe('openai client', () => {
  test('models.list shows the served model with max_model_len', async () => {
    const models = await client.models.list();
    assert.equal(models.data[0].id, 'tiny-swa');
    assert.equal((models.data[0] as unknown as { max_model_len: number }).max_model_len, 2048);
  });

  test('completions: streamed ≡ non-streamed (greedy), with logprobs', async () => {
    const params = { model: 'tiny-swa', prompt: 'The whale', max_tokens: 24, logprobs: 2, ...greedy };
    const whole = await client.completions.create(params);
    assert.equal(whole.choices[0].finish_reason, 'length');
    assert.equal(whole.choices[0].logprobs?.tokens?.length, 24);
    assert.equal(whole.usage?.completion_tokens, 24);
    let text = '';
    const tokens: string[] = [];
    let finish: string | null = null;
    for await (const chunk of await client.completions.create({ ...params, stream: true })) {
      text += chunk.choices[0].text;
      tokens.push(...(chunk.choices[0].logprobs?.tokens ?? []));
      finish = chunk.choices[0].finish_reason ?? finish;
    }
    assert.equal(text, whole.choices[0].text);
    assert.deepEqual(tokens, whole.choices[0].logprobs?.tokens);
    assert.equal(finish, 'length');
  });

  test('chat: streamed ≡ non-streamed (greedy), logprobs.content', async () => {
    const params = { model: 'tiny-swa', messages: [{ role: 'user' as const, content: 'Tell me of the sea.' }], max_completion_tokens: 20, logprobs: true, top_logprobs: 3, ...greedy };
    const whole = await client.chat.completions.create(params);
    const content = whole.choices[0].logprobs?.content ?? [];
    assert.equal(content.length, 20);
    assert.equal(content[0].top_logprobs.length, 3);
    assert.equal(whole.choices[0].message.role, 'assistant');
    let text = '';
    for await (const chunk of await client.chat.completions.create({ ...params, stream: true })) text += chunk.choices[0]?.delta?.content ?? '';
    assert.equal(text, whole.choices[0].message.content);
  });

  test('token-id prompt ≡ the same text prompt; echo and prompt_logprobs (vLLM extensions) through the client', async () => {
    const ids = [256, ...new TextEncoder().encode('Call me')];
    const a = await client.completions.create({ model: 'tiny-swa', prompt: ids, max_tokens: 10, ...greedy });
    const b = await client.completions.create({ model: 'tiny-swa', prompt: 'Call me', max_tokens: 10, ...greedy });
    assert.equal(a.choices[0].text, b.choices[0].text);
    const e = await client.completions.create({ model: 'tiny-swa', prompt: ids, max_tokens: 4, echo: true, logprobs: 1, ...greedy, prompt_logprobs: 1 } as OpenAI.CompletionCreateParamsNonStreaming);
    const choice = e.choices[0] as typeof e.choices[0] & { prompt_logprobs: (Record<string, { logprob: number; rank: number; decoded_token: string }> | null)[] };
    assert.ok(choice.text.startsWith('Call me'));
    assert.equal(choice.logprobs?.tokens?.length, ids.length + 4);
    assert.equal(choice.logprobs?.token_logprobs?.[0], null);
    assert.equal(choice.prompt_logprobs[0], null);
    assert.equal(choice.prompt_logprobs.length, ids.length);
    assert.equal(choice.prompt_logprobs[1]![String(ids[1])].decoded_token, 'C');
    // the echoed prompt's logprobs are the prompt_logprobs of the same tokens
    assert.equal(choice.logprobs?.token_logprobs?.[2], choice.prompt_logprobs[2]![String(ids[2])].logprob);
  });

  test('two concurrent requests get the same greedy tokens as each alone', async () => {
    const req = (prompt: string) => client.completions.create({ model: 'tiny-swa', prompt, max_tokens: 32, ignore_eos: true, ...greedy } as OpenAI.CompletionCreateParamsNonStreaming);
    const [alone1, alone2] = [await req('It was the best of times'), await req('Congress shall')];
    const [both1, both2] = await Promise.all([req('It was the best of times'), req('Congress shall')]);
    assert.equal(both1.choices[0].text, alone1.choices[0].text);
    assert.equal(both2.choices[0].text, alone2.choices[0].text);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    assert.match(metrics, /vllm:request_success_total\{model_name="tiny-swa",finished_reason="length"\} \d+/);
  });

  test('an error comes back as the client’s typed error with vLLM’s message', async () => {
    await assert.rejects(client.completions.create({ model: 'tiny-swa', prompt: 'x', max_tokens: 5000 }), (e: unknown) => e instanceof OpenAI.BadRequestError && /maximum context length is 2048/.test(e.message));
    await assert.rejects(client.completions.create({ model: 'nope', prompt: 'x' }), (e: unknown) => e instanceof OpenAI.NotFoundError);
  });
});

describe('a step budget (--max-num-batched-tokens 16): prompts fed in chunks', () => {
  let chunked: ServerProcess;
  before(async () => (chunked = await startServer(['--model', 'models/tiny-swa', '--served-model-name', 'tiny-swa', '--max-num-batched-tokens', '16'])));
  after(() => chunked?.stop());

  test('the same greedy text and prompt_logprobs as without a budget, two long prompts at once', async () => {
    const body = (prompt: string) => ({ model: 'tiny-swa', prompt, max_tokens: 24, ignore_eos: true, prompt_logprobs: 1, logprobs: 1, ...greedy });
    const ask = async (url: string, prompt: string) => {
      const r = await fetch(`${url}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body(prompt)) });
      assert.equal(r.status, 200);
      return (await r.json()) as { choices: { text: string; prompt_logprobs: unknown; logprobs: unknown }[] };
    };
    const prompts = ['It was the best of times, it was the worst of times, it was the age of wisdom', 'Congress shall make no law respecting an establishment of religion, or prohibiting'];
    const [a, b] = await Promise.all(prompts.map((p) => ask(chunked.url, p)));
    for (const [i, got] of [a, b].entries()) {
      const want = await ask(server.url, prompts[i]);
      assert.equal(got.choices[0].text, want.choices[0].text);
      assert.deepEqual(got.choices[0].prompt_logprobs, want.choices[0].prompt_logprobs);
      assert.deepEqual(got.choices[0].logprobs, want.choices[0].logprobs);
    }
  });
});
