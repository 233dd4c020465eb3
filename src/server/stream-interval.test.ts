/**
 * `--stream-interval N`: the same tokens, text and logprobs as one token per event, in events of N
 * tokens (the last may carry fewer), or all of them in one event with 0.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { post, sseEvents, testServer, type Json } from './testing.js';

const greedy = { temperature: 0, ignore_eos: true, seed: 1 };
const body = { prompt: 'the stream interval', max_tokens: 10, logprobs: 2, ...greedy, stream: true };

async function streamed(
  interval: number,
  path = '/v1/completions',
  extra: Record<string, unknown> = {},
): Promise<Json[]> {
  const server = testServer({ streamInterval: interval });
  const r = await post(server, path, { ...body, ...extra });
  assert.equal(r.status, 200, r.text);
  await server.runner.shutdown(1000);
  return sseEvents(r.text).filter((e) => e.choices.length > 0);
}

const tokensPerEvent = (events: Json[]) => events.map((e) => e.choices[0].logprobs?.tokens.length ?? 0);
const joined = (events: Json[], f: (c: Json) => unknown[] | string) =>
  events.flatMap((e) => {
    const v = f(e.choices[0]);
    return typeof v === 'string' ? [v] : v;
  });

test('completions: 4 tokens per event (10 tokens → 4, 4, 2), the same tokens and logprobs as one per event', async () => {
  const one = await streamed(1);
  const four = await streamed(4);
  assert.deepEqual(tokensPerEvent(one), Array(10).fill(1));
  assert.deepEqual(tokensPerEvent(four), [4, 4, 2]);
  for (const field of ['tokens', 'token_logprobs', 'top_logprobs'] as const)
    assert.deepEqual(
      joined(four, (c) => c.logprobs[field]),
      joined(one, (c) => c.logprobs[field]),
      field,
    );
  assert.equal(joined(four, (c) => c.text).join(''), joined(one, (c) => c.text).join(''));
  assert.equal(four.at(-1).choices[0].finish_reason, 'length');
  assert.ok(four.slice(0, -1).every((e) => e.choices[0].finish_reason === null));
});

test('--stream-interval 0: the whole completion in one event, with its finish_reason', async () => {
  const all = await streamed(0);
  assert.deepEqual(tokensPerEvent(all), [10]);
  assert.equal(all[0].choices[0].finish_reason, 'length');
  const one = await streamed(1);
  assert.deepEqual(
    all[0].choices[0].logprobs.tokens,
    joined(one, (c) => c.logprobs.tokens),
  );
});

test('chat completions: the content deltas regroup the same way (role chunk first)', async () => {
  const chat = {
    messages: [{ role: 'user', content: 'hi' }],
    prompt: undefined,
    logprobs: true,
    top_logprobs: 1,
  };
  const four = await streamed(4, '/v1/chat/completions', chat);
  const counts = four.map((e) => e.choices[0].logprobs?.content.length ?? 0);
  assert.deepEqual(counts, [0, 4, 4, 2], 'the role chunk carries no token');
});
