/**
 * Conformance of the probe's client with each serving engine's response shape, on the recorded
 * exchanges in test/fixtures/probe/shapes/ (provenance in each file): a non-streamed answer gives
 * the generated token ids, or an error that names what the shape lacks; a streamed one gives its
 * token count — tokens, not events — through the same SSE reader the workload suite uses.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Generation } from '../oracle/types.js';
import { generationFromLlamaServer } from './llama-server-native.js';
import { generationFrom, parseCompletion, ResponseError } from './responses.js';
import { generationFromSglang } from './sglang-native.js';
import { streamedEvents } from './sse-reader.js';
import { StreamTokenCounter } from './stream-tokens.js';
import { generationFromTgi } from './tgi-native.js';

const dir = fileURLToPath(new URL('../../test/fixtures/probe/shapes/', import.meta.url));

interface Fixture {
  provenance: string[];
  engine: string;
  route: string;
  streamed: boolean;
  response?: unknown;
  events?: unknown[];
  expect: { tokens?: number[] | number; error?: string; events?: number; countedBy?: string; text?: string };
}
const fixtures = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => ({ file: f, ...(JSON.parse(readFileSync(dir + f, 'utf8')) as Fixture) }));

/** The client's parser for each non-streamed route. */
function parserFor(f: Fixture): (json: unknown) => Generation {
  if (f.route === 'POST /v1/completions') return (j) => generationFrom(parseCompletion(j));
  if (f.route === 'POST /generate') return f.engine === 'sglang' ? generationFromSglang : generationFromTgi;
  if (f.route === 'POST /completion') return generationFromLlamaServer;
  throw new Error(`${f.route}: no parser`);
}

/** A stand-in tokenizer for text-only streams: one token per word. */
const words = async (text: string) => text.split(/(?=[ /])/).filter(Boolean).length;

function sseBody(events: unknown[], done: boolean): AsyncIterable<Uint8Array> {
  const text =
    events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('') + (done ? 'data: [DONE]\n\n' : '');
  const bytes = new TextEncoder().encode(text);
  // cut at odd places, as a network would
  return (async function* () {
    for (let i = 0; i < bytes.length; i += 37) yield bytes.subarray(i, i + 37);
  })();
}

test('every engine users run has recorded fixtures, each with its provenance, streamed and not', () => {
  const engines = new Set(fixtures.map((f) => f.engine));
  assert.deepEqual([...engines].sort(), ['llama-server', 'ollama', 'sglang', 'tgi', 'trtllm-serve', 'vllm']);
  for (const e of engines)
    assert.ok(
      fixtures.some((f) => f.engine === e && f.streamed),
      `${e}: a streamed fixture`,
    );
  for (const f of fixtures) {
    assert.ok(
      f.provenance.length > 0 &&
        f.provenance.every((p) => /@ [0-9a-f]{40}/.test(p) || /values written by hand/.test(p)),
      `${f.file}: provenance names a commit`,
    );
    assert.ok(
      f.provenance.some((p) => /@ [0-9a-f]{40}/.test(p)),
      `${f.file}: at least one source at a commit`,
    );
  }
});

for (const f of fixtures.filter((x) => !x.streamed))
  test(`${f.file}: ${f.engine} ${f.route} → ${f.expect.error ? `refused: ${f.expect.error}` : 'token ids and logprobs'}`, () => {
    const parse = parserFor(f);
    if (f.expect.error) {
      assert.throws(
        () => parse(f.response),
        (e: unknown) => e instanceof ResponseError && e.message.includes(f.expect.error!),
      );
      return;
    }
    const g = parse(f.response);
    assert.deepEqual(g.tokens, f.expect.tokens);
    assert.ok(
      g.steps.every(
        (s) => Number.isFinite(s.logprob) && s.top.length > 0 && s.top.some((t) => t.token === s.token),
      ),
      'each step has its own token among its alternatives',
    );
    assert.ok(g.finishReason, 'a finish reason');
  });

for (const f of fixtures.filter((x) => x.streamed))
  test(`${f.file}: ${f.engine} ${f.route} streamed → ${f.expect.tokens ?? 'text'} token(s) in ${f.expect.events} event(s), counted by ${f.expect.countedBy}`, async () => {
    for (const done of [true, false]) {
      const counter = new StreamTokenCounter(words);
      let events = 0;
      let text = '';
      for await (const e of streamedEvents(sseBody(f.events!, done))) {
        events++;
        const t = await counter.add(e);
        assert.equal(t.error, undefined, `${f.file} event ${events}: ${t.error}`);
        text += t.text;
      }
      assert.equal(events, f.expect.events);
      assert.equal(counter.countedBy, f.expect.countedBy);
      assert.ok(counter.finished, 'the last event says the completion ended');
      if (typeof f.expect.tokens === 'number') assert.equal(counter.tokens, f.expect.tokens);
      else {
        assert.equal(text, f.expect.text);
        assert.equal(counter.tokens, await words(f.expect.text!));
      }
    }
  });

test('a server that ignores stream answers with one JSON body: one event holding the whole completion', async () => {
  const f = fixtures.find((x) => x.file === 'vllm-completion.json')!;
  const body = new TextEncoder().encode(JSON.stringify(f.response, null, 1));
  const events: unknown[] = [];
  for await (const e of streamedEvents(
    (async function* () {
      yield body.subarray(0, 50);
      yield body.subarray(50);
    })(),
  ))
    events.push(e);
  assert.equal(events.length, 1);
  const counter = new StreamTokenCounter();
  await counter.add(events[0]);
  assert.equal(counter.tokens, 8);
  assert.ok(counter.finished);
});

test('text-only events without a tokenizer, an error event, an unknown shape: each an error, never a count of zero', async () => {
  const noTokenizer = new StreamTokenCounter();
  assert.match(
    (await noTokenizer.add({ choices: [{ text: 'hi', finish_reason: null }] })).error ?? '',
    /text only/,
  );
  assert.match(
    (await new StreamTokenCounter().add({ error: { message: 'engine died' } })).error ?? '',
    /engine died/,
  );
  assert.match((await new StreamTokenCounter().add({ foo: 1 })).error ?? '', /no known shape/);
  await assert.rejects(async () => {
    for await (const e of streamedEvents(
      (async function* () {
        yield new TextEncoder().encode('data: {not json\n\n');
      })(),
    ))
      void e;
  }, /not JSON/);
});
