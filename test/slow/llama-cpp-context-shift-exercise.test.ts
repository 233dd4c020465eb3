/**
 * Every launch of examples/llama-cpp/context-shift.yaml shifts, many times over, for the probe's
 * own requests, and each level changes what llama.cpp does while it shifts, shown by what the
 * runtime reports for one probe round launched as the plan launches it. The {q8_0 K, rotation off}
 * launches are not here: they crash at their first shift (the matrix test asserts that).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/cli.js';
import { configLabel, launchAll, maxLogprobDelta, metric, type Launched } from '../helpers/plan-launch.js';

const planFile = join(repoRoot, 'examples/llama-cpp/context-shift.yaml');

const LAUNCHES: Record<string, Record<string, string>> = {
  reference: {},
  k_q8_0: { cache_type_k: 'q8_0' },
  v_q8_0_no_rotation: { cache_type_v: 'q8_0', flash_attn: 'on', kv_rotation: 'off' },
  flash_on: { flash_attn: 'on' },
  parallel_4: { parallel: '4' },
  batch_16: { batch_size: '16' },
};

let results: Map<string, Launched>;
let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'faultline-llama-shift-exercise-'));
  results = await launchAll(planFile, dir, LAUNCHES);
});

after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const get = (name: string): Launched => results.get(name)!;

test('every launch has 256-cell sequences with context shift, and every request outgrows its sequence more than once on average', (t) => {
  for (const [name, l] of results) {
    const requests = l.recording.exchanges.length;
    const shifts = metric(l, 'faultline:llama_cpp_context_shifts_total');
    t.diagnostic(`${name}: ${shifts} shifts over ${requests} requests`);
    assert.equal(configLabel(l, 'context_shift'), 'true', name);
    assert.equal(configLabel(l, 'n_ctx_seq'), '256', name);
    assert.ok(shifts >= 2 * requests, `${name}: ${shifts} ≥ 2 × ${requests}`);
  }
});

test('quantized K and V, and flash attention: the arithmetic of the shifted cache moves off the reference', (t) => {
  for (const name of ['k_q8_0', 'v_q8_0_no_rotation', 'flash_on']) {
    const d = maxLogprobDelta(get('reference').recording, get(name).recording);
    t.diagnostic(`${name}: max |Δ logprob| on shared tokens ${d.toExponential(2)}`);
    assert.ok(d > 0, `${name} changes the log-probabilities`);
  }
  assert.match(get('v_q8_0_no_rotation').log, /LLAMA_ATTN_ROT_DISABLE/);
});

test('four sequences: sequences share batches while they shift', (t) => {
  const four = metric(get('parallel_4'), 'faultline:llama_cpp_batch_sequences_max');
  t.diagnostic(`sequences per batch at most: ${four} at parallel 4`);
  assert.ok(four > 1, `${four} > 1`);
  assert.equal(metric(get('reference'), 'faultline:llama_cpp_batch_sequences_max'), 1);
});

test('batch size 16: the same requests take more llama_decode batches', (t) => {
  const ref = metric(get('reference'), 'faultline:llama_cpp_batches_total');
  const small = metric(get('batch_16'), 'faultline:llama_cpp_batches_total');
  t.diagnostic(`batches: ${ref} at the default, ${small} at 16`);
  assert.ok(small > ref, `${small} > ${ref}`);
});
