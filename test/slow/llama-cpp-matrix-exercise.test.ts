/**
 * Every level of examples/llama-cpp/matrix.yaml changes what llama.cpp does for the probe's own
 * requests, shown by what the runtime reports: each level is launched as the plan launches it
 * (the plan's argv and env, read from the file), sent exactly the requests a probe round sends
 * (the plan's probe settings and prompt text), and its /metrics, start-up log and log-probabilities
 * are compared with the reference launch's. A level the requests never reach fails here.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/cli.js';
import { configLabel, launchAll, maxLogprobDelta, metric, type Launched } from '../helpers/plan-launch.js';

const planFile = join(repoRoot, 'examples/llama-cpp/matrix.yaml');

/** The launches: the reference (every factor's first level) and the levels named here over it. */
const LAUNCHES: Record<string, Record<string, string>> = {
  reference: {},
  k_q8_0: { cache_type_k: 'q8_0' },
  v_q8_0: { cache_type_v: 'q8_0', flash_attn: 'on' },
  flash_on: { flash_attn: 'on' },
  swa_full: { swa_full: 'on' },
  parallel_4: { parallel: '4' },
  batch_16: { batch_size: '16' },
  cache_prompt: { cache_prompt: 'on', swa_full: 'on' },
  draft: { draft: 'q8_0' },
  prompt_lookup: { prompt_lookup: 'ngram' },
  k_q8_0_no_rotation: { cache_type_k: 'q8_0', kv_rotation: 'off' },
};

let results: Map<string, Launched>;
let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'faultline-llama-exercise-'));
  results = await launchAll(planFile, dir, LAUNCHES);
});

after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const get = (name: string): Launched => results.get(name)!;

test('K and V cache types: the runtime reports q8_0, and the numbers move off the F16 reference', (t) => {
  for (const [name, label] of [
    ['k_q8_0', 'cache_type_k'],
    ['v_q8_0', 'cache_type_v'],
  ] as const) {
    assert.equal(configLabel(get('reference'), label), 'f16');
    assert.equal(configLabel(get(name), label), 'q8_0');
    const d = maxLogprobDelta(get('reference').recording, get(name).recording);
    t.diagnostic(`${name}: max |Δ logprob| on shared tokens ${d.toExponential(2)}`);
    assert.ok(d > 0, `${name} changes the log-probabilities`);
  }
});

test('flash attention: off in the reference, on at its level, and the arithmetic differs', (t) => {
  assert.equal(configLabel(get('reference'), 'flash_attn'), 'off');
  assert.equal(configLabel(get('flash_on'), 'flash_attn'), 'on');
  const d = maxLogprobDelta(get('reference').recording, get('flash_on').recording);
  t.diagnostic(`flash on: max |Δ logprob| ${d.toExponential(2)}`);
  assert.ok(d > 0);
});

test('parallel sequences: the probe puts several sequences in one batch at parallel 4, one at parallel 1', (t) => {
  const one = metric(get('reference'), 'faultline:llama_cpp_batch_sequences_max');
  const four = metric(get('parallel_4'), 'faultline:llama_cpp_batch_sequences_max');
  t.diagnostic(`sequences per batch at most: ${four} at parallel 4, ${one} at parallel 1 (the reference)`);
  assert.ok(four > 1, `${four} > 1`);
  assert.equal(one, 1);
});

test('batch size 16: the same requests take more llama_decode batches', (t) => {
  const ref = metric(get('reference'), 'faultline:llama_cpp_batches_total');
  const small = metric(get('batch_16'), 'faultline:llama_cpp_batches_total');
  t.diagnostic(`batches: ${ref} at the default, ${small} at 16`);
  assert.equal(configLabel(get('batch_16'), 'n_batch'), '16');
  assert.ok(small > ref, `${small} > ${ref}`);
});

test('prefix reuse: with a full sliding-window cache the probe reuses cached prefixes, with cache-prompt off none', (t) => {
  const on = get('cache_prompt');
  const off = get('swa_full');
  const requests = on.recording.exchanges.length;
  const hitsOn = metric(on, 'vllm:prefix_cache_hits_total');
  const hitsOff = metric(off, 'vllm:prefix_cache_hits_total');
  t.diagnostic(`prefix tokens reused: ${hitsOn} (cache-prompt on, ${requests} requests) vs ${hitsOff} (off)`);
  assert.equal(configLabel(off, 'swa_full'), 'true');
  assert.equal(hitsOff, 0);
  // more than a first token per request: real prefixes were reused
  assert.ok(hitsOn > requests, `${hitsOn} > ${requests}`);
});

test('draft speculation: the draft drafts and its tokens are accepted', (t) => {
  const drafted = metric(get('draft'), 'vllm:spec_decode_num_draft_tokens_total');
  const accepted = metric(get('draft'), 'vllm:spec_decode_num_accepted_tokens_total');
  t.diagnostic(`draft tokens ${drafted}, accepted ${accepted}`);
  assert.ok(accepted > 0 && drafted >= accepted);
  assert.equal(metric(get('reference'), 'vllm:spec_decode_num_draft_tokens_total'), 0);
});

test('prompt lookup: n-grams of the output found in the prompt draft tokens, and some are accepted', (t) => {
  const drafted = metric(get('prompt_lookup'), 'vllm:spec_decode_num_draft_tokens_total');
  const accepted = metric(get('prompt_lookup'), 'vllm:spec_decode_num_accepted_tokens_total');
  t.diagnostic(`prompt-lookup draft tokens ${drafted}, accepted ${accepted}`);
  assert.ok(accepted > 0 && drafted > accepted, 'drafts made, some accepted, some refuted');
  assert.match(get('prompt_lookup').log, /prompt lookup \(n-gram 4, ≤ 16 tokens\)/);
});

test('quantized-KV rotation off: llama.cpp names the switch, and the q8_0 numbers change', (t) => {
  assert.match(get('k_q8_0_no_rotation').log, /LLAMA_ATTN_ROT_DISABLE/);
  assert.doesNotMatch(get('k_q8_0').log, /LLAMA_ATTN_ROT_DISABLE/);
  const d = maxLogprobDelta(get('k_q8_0').recording, get('k_q8_0_no_rotation').recording);
  t.diagnostic(`rotation off vs on at q8_0 K: max |Δ logprob| ${d.toExponential(2)}`);
  assert.ok(d > 0);
});
