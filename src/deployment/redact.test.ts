import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isSecretArg, isSecretName, redactText, redactValue } from './redact.js';

test('credential names are secret; names that count tokens are not', () => {
  for (const n of ['HF_TOKEN', 'HUGGING_FACE_HUB_TOKEN', 'OPENAI_API_KEY', 'VLLM_API_KEY', 'DB_PASSWORD', 'AUTHORIZATION', 'AWS_SECRET_ACCESS_KEY', 'hf-api-token', 'TOKEN'])
    assert.equal(isSecretName(n), true, n);
  for (const n of ['max_num_batched_tokens', 'MAX_NUM_BATCHED_TOKENS', 'TOKENIZERS_PARALLELISM', 'VLLM_MAX_TOKENS_PER_EXPERT', 'max_tokens', 'KEY_VALUE_CACHE', 'PASSTHROUGH'])
    assert.equal(isSecretName(n), false, n);
  assert.equal(isSecretArg('api_key'), true);
  assert.equal(isSecretArg('hf_token'), true);
  assert.equal(isSecretArg('max_num_batched_tokens'), false);
  assert.equal(isSecretArg('max_model_len'), false);
});

test('credential-looking values are replaced anywhere; ordinary text is left alone', () => {
  assert.equal(redactText('curl -H "Authorization: Bearer abcdefgh12345678"'), 'curl -H "Authorization: <redacted>"');
  assert.equal(redactText('token hf_ABCDEFGHIJKLMNOPQRSTUVWXYZ here'), 'token <redacted> here');
  assert.equal(redactText('--max-num-batched-tokens 8192'), '--max-num-batched-tokens 8192');
  assert.deepEqual(redactValue(false, ['a', 'sk-abcdefghijklmnopqrstu']), ['a', '<redacted>']);
  assert.equal(redactValue(true, 'x'), '<redacted>');
  assert.equal(redactValue(false, 8192), 8192);
});
