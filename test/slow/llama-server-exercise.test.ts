/**
 * Every level of examples/llama-cpp/llama-server.yaml changes what llama-server does for the probe's
 * own requests, shown by what the server reports: each level is launched as the plan launches it
 * (its argv, read from the file), sent exactly the requests one probe round sends, and its /metrics
 * (llama-server's own counters), start-up log and log-probabilities are compared with those of
 * llama-server at every other factor's first level. A level the requests never reach fails here.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/cli.js';
import { ensureLlamaServer } from '../helpers/llama-server-binary.js';
import { configLabel, launchAll, maxLogprobDelta, metric, type Launched } from '../helpers/plan-launch.js';

const planFile = join(repoRoot, 'examples/llama-cpp/llama-server.yaml');

const SERVER = { server: 'llama-server' };
const LAUNCHES: Record<string, Record<string, string>> = {
  reference: {},
  server: SERVER,
  k_q8_0: { ...SERVER, cache_type_k: 'q8_0' },
  flash_on: { ...SERVER, flash_attn: 'on' },
  swa_full: { ...SERVER, swa_full: 'on' },
  parallel_4: { ...SERVER, parallel: '4' },
  cache_on: { ...SERVER, swa_full: 'on', cache_prompt: 'on' },
  cache_reuse: { ...SERVER, swa_full: 'on', cache_prompt: 'reuse' },
  draft: { ...SERVER, draft: 'q8_0' },
};

let results: Map<string, Launched>;
let dir: string;

before(async () => {
  ensureLlamaServer((line) => process.stderr.write(`${line}\n`));
  dir = mkdtempSync(join(tmpdir(), 'faultline-llama-server-exercise-'));
  results = await launchAll(planFile, dir, LAUNCHES);
});

after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const get = (name: string): Launched => results.get(name)!;
const llamacpp = (name: string, counter: string): number => metric(get(name), `llamacpp:${counter}`);

test('server: the reference is the node-llama-cpp runtime, every other launch llama-server with its own counters', () => {
  assert.equal(configLabel(get('reference'), 'cache_type_k'), 'f16');
  for (const name of Object.keys(LAUNCHES).filter((n) => n !== 'reference'))
    assert.ok(llamacpp(name, 'n_decode_total') > 0, `${name} is llama-server and decoded`);
});

// llama-server logs neither cache type nor flash attention at its default verbosity: the numbers show them
test('K cache type and flash attention: the numbers move off F16 without flash attention', (t) => {
  for (const name of ['k_q8_0', 'flash_on']) {
    const d = maxLogprobDelta(get('server').recording, get(name).recording);
    t.diagnostic(`${name}: max |Δ logprob| on shared tokens ${d.toExponential(2)}`);
    assert.ok(d > 0, `${name} changes the log-probabilities`);
  }
});

test('SWA full: the sliding-window layers get the full-size cache', () => {
  assert.match(get('swa_full').log, /using full-size SWA cache/);
  assert.doesNotMatch(get('server').log, /using full-size SWA cache/);
});

test('four slots: the probe’s concurrent requests share llama_decode calls', (t) => {
  const four = llamacpp('parallel_4', 'n_busy_slots_per_decode');
  const one = llamacpp('server', 'n_busy_slots_per_decode');
  t.diagnostic(`busy slots per decode: ${one} with 1 slot, ${four} with 4`);
  assert.equal(one, 1);
  assert.ok(four > 1, `${four} > 1`);
});

test('prompt cache: prompt tokens come from the cache; cache reuse takes more of them than the common prefix', (t) => {
  const off = llamacpp('server', 'prompt_tokens_cached_total');
  const on = llamacpp('cache_on', 'prompt_tokens_cached_total');
  const reuse = llamacpp('cache_reuse', 'prompt_tokens_cached_total');
  t.diagnostic(`prompt tokens from the cache: ${off} off, ${on} on, ${reuse} with --cache-reuse 16`);
  assert.equal(off, 0);
  assert.ok(on > 0, `${on} > 0`);
  assert.ok(reuse > on, `${reuse} > ${on}`);
});

test('draft: the Q8_0 draft drafts and its tokens are accepted', (t) => {
  const drafted = llamacpp('draft', 'spec_decode_num_draft_tokens_total');
  const accepted = llamacpp('draft', 'spec_decode_num_accepted_tokens_total');
  t.diagnostic(`draft tokens: ${drafted} drafted, ${accepted} accepted`);
  assert.ok(accepted > 0, `${accepted} > 0`);
  assert.equal(llamacpp('server', 'spec_decode_num_draft_tokens_total'), 0);
});
