/**
 * `--serve-quirk`: a server that stops early (ignore_eos and min_tokens dropped, a token ending the
 * generation as an EOS would) and one that does not report its KV capacity.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseQuirks } from './api-shape.js';
import { post, testServer } from './testing.js';

test('stop-at-token=ID: ignore_eos and min_tokens no longer hold; the generation ends at ID with finish_reason stop', async () => {
  const plain = testServer();
  const body = {
    prompt: 'stopping early',
    max_tokens: 40,
    temperature: 0,
    ignore_eos: true,
    min_tokens: 40,
    logprobs: 1,
    return_token_ids: true,
  };
  const full = await post(plain, '/v1/completions', body);
  const ids: number[] = full.json.choices[0].token_ids;
  assert.equal(ids.length, 40);
  const stopAt = ids[5];
  const quirky = testServer({ quirks: { noKvCapacity: false, stopAtToken: stopAt } });
  const r = await post(quirky, '/v1/completions', body);
  const c = r.json.choices[0];
  assert.equal(c.finish_reason, 'stop');
  assert.equal(c.stop_reason, stopAt);
  const first = ids.indexOf(stopAt);
  assert.deepEqual(c.token_ids, ids.slice(0, c.token_ids.length), 'the same tokens, up to the stop');
  assert.ok(
    c.token_ids.length <= first + 1,
    `stops at the first ${stopAt} (index ${first}), got ${c.token_ids.length} tokens`,
  );
  await Promise.all([plain.runner.shutdown(1000), quirky.runner.shutdown(1000)]);
});

test('no-kv-capacity: /metrics has no vllm:cache_config_info, the rest stays', async () => {
  const s = testServer({ quirks: { noKvCapacity: true }, prefixCaching: true, numGpuBlocks: 40 });
  const m = await (await s.app.request('/metrics')).text();
  assert.doesNotMatch(m, /cache_config_info/);
  assert.match(m, /vllm:kv_cache_usage_perc/);
  const plain = await (
    await testServer({ prefixCaching: true, numGpuBlocks: 40 }).app.request('/metrics')
  ).text();
  assert.match(plain, /vllm:cache_config_info\{/);
});

test('quirk words: known ones parse, anything else is named', () => {
  assert.deepEqual(parseQuirks(['no-kv-capacity', 'stop-at-token=46']), {
    quirks: { noKvCapacity: true, stopAtToken: 46 },
  });
  assert.deepEqual(parseQuirks(['stop-at-token=x']), { bad: 'stop-at-token=x' });
});
