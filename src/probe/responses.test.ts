import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  generationFrom,
  parseCompletion,
  parseModels,
  parseTokenize,
  scoresFromEcho,
  scoresFromPromptLogprobs,
  tokenIdOf,
} from './responses.js';

// Shapes as vLLM's OpenAI server returns them (research notes §4.1): CompletionResponseChoice with
// CompletionLogProbs {text_offset, token_logprobs, tokens, top_logprobs} and prompt_logprobs as a
// list of null | {token_id: {logprob, rank, decoded_token}}.
const generationResponse = {
  id: 'cmpl-1',
  object: 'text_completion',
  created: 1,
  model: 'm',
  choices: [
    {
      index: 0,
      text: 'ab',
      logprobs: {
        text_offset: [0, 1],
        token_logprobs: [-0.1, -0.7],
        tokens: ['token_id:97', 'token_id:98'],
        top_logprobs: [
          { 'token_id:97': -0.1, 'token_id:120': -2.5 },
          { 'token_id:99': -0.69, 'token_id:98': -0.7 },
        ],
      },
      finish_reason: 'length',
      stop_reason: null,
      prompt_logprobs: null,
    },
  ],
  usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
};

test('a generation: ids from "token_id:N", top-k sorted best first', () => {
  const g = generationFrom(parseCompletion(generationResponse));
  assert.deepEqual(g.tokens, [97, 98]);
  assert.deepEqual(g.steps[1].top, [
    { token: 99, logprob: -0.69 },
    { token: 98, logprob: -0.7 },
  ]);
  assert.equal(g.finishReason, 'length');
});

test('token strings that are not ids mean the server ignored return_tokens_as_token_ids', () => {
  assert.equal(tokenIdOf('token_id:0'), 0);
  const bad = structuredClone(generationResponse);
  bad.choices[0].logprobs.tokens = ['a', 'b'];
  assert.throws(() => generationFrom(parseCompletion(bad)), /return_tokens_as_token_ids/);
});

test('missing logprobs or a malformed body are parse errors with the path', () => {
  const noLp = structuredClone(generationResponse) as { choices: { logprobs: unknown }[] };
  noLp.choices[0].logprobs = null;
  assert.throws(() => generationFrom(parseCompletion(noLp)), /no logprobs/);
  assert.throws(() => parseCompletion({ choices: [] }), /choices/);
  assert.throws(() => parseCompletion('nope'), /not a completion response/);
});

test('prompt_logprobs scores: exact rank from the server, best token from the entry', () => {
  const res = parseCompletion({
    choices: [
      {
        text: 'x',
        logprobs: null,
        finish_reason: 'length',
        prompt_logprobs: [
          null,
          { '5': { logprob: -0.2, rank: 1, decoded_token: 'a' } },
          {
            '9': { logprob: -6.1, rank: 14, decoded_token: 'q' },
            '7': { logprob: -0.05, rank: 1, decoded_token: 'b' },
          },
        ],
      },
    ],
  });
  const s = scoresFromPromptLogprobs(res, [256, 5, 9], 1);
  assert.deepEqual(s, [
    { token: 5, logprob: -0.2, rank: 1, topLogprob: -0.2, topToken: 5 },
    { token: 9, logprob: -6.1, rank: 14, topLogprob: -0.05, topToken: 7 },
  ]);
  assert.throws(() => scoresFromPromptLogprobs(res, [256, 5], 1), /3 entries for a 2-token prompt/);
});

test('echo scores: rank from the top-k, a lower bound when the token is not listed', () => {
  const res = parseCompletion({
    choices: [
      {
        text: '',
        finish_reason: 'length',
        logprobs: {
          tokens: ['token_id:256', 'token_id:5', 'token_id:9', 'token_id:1'],
          token_logprobs: [null, -0.3, -8, -0.1],
          top_logprobs: [
            null,
            { 'token_id:5': -0.3, 'token_id:6': -1.5 },
            { 'token_id:7': -0.01, 'token_id:8': -5 },
            { 'token_id:1': -0.1 },
          ],
        },
      },
    ],
  });
  const s = scoresFromEcho(res, [256, 5, 9], 1);
  assert.deepEqual(s[0], {
    token: 5,
    logprob: -0.3,
    rank: 1,
    rankIsLowerBound: false,
    topLogprob: -0.3,
    topToken: 5,
  });
  assert.deepEqual(s[1], {
    token: 9,
    logprob: -8,
    rank: 3,
    rankIsLowerBound: true,
    topLogprob: -0.01,
    topToken: 7,
  });
});

test('/tokenize and /v1/models', () => {
  assert.deepEqual(parseTokenize({ count: 2, max_model_len: 2048, tokens: [256, 97] }), {
    tokens: [256, 97],
    maxModelLen: 2048,
  });
  assert.throws(() => parseTokenize({ tokens: ['a'] }), /tokenize/);
  assert.deepEqual(parseModels({ object: 'list', data: [{ id: 'tiny', max_model_len: 2048 }] }), {
    id: 'tiny',
    maxModelLen: 2048,
  });
  assert.throws(() => parseModels({ data: [] }), /v1\/models/);
});
