/**
 * `faultline engine generate` end to end: the real CLI (spawned from source) on a small random
 * model written to a temporary directory; results are compared with the engine run in-process.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createReferenceBackend } from '../../src/engine/attention/reference-backend.js';
import { Engine } from '../../src/engine/engine.js';
import { generate } from '../../src/engine/generate.js';
import { randomModel, tinyConfig, writeModelDir } from '../../src/engine/testing/random-init.js';
import { GREEDY } from '../../src/engine/sampling.js';
import { main } from '../../src/cli/main.js';
import { memoryIO } from '../../src/cli/io.js';
import { runCli } from '../helpers/cli.js';

let dir = '';
const scales = [{ q: 0.02, k: 0.01, v: 0.015 }, { q: 0.03, k: 0.02, v: 0.01 }, { q: 0.02, k: 0.015, v: 0.02 }];
const model = randomModel(tinyConfig({ declaresFp8KvCache: true }), { seed: 1, scales, std: 0.08 });

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'faultline-engine-e2e-'));
  writeModelDir(dir, model);
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('--json greedy output equals the engine in-process (bf16, KV auto → FP8 from the checkpoint, reference attention)', async () => {
  const prompt = 'The quick brown fox';
  const r = await runCli(['engine', 'generate', '--model', dir, '--prompt', prompt, '--max-tokens', '12', '--logprobs', '2', '--json', '--enforce-eager']);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  const engine = new Engine(model, { precision: 'bf16', kvDtype: 'fp8_e4m3', pageSize: 16, cacheKind: 'contiguous', backend: createReferenceBackend() });
  const ids = [256, ...new TextEncoder().encode(prompt)];
  const want = generate(engine, ids, { maxTokens: 12, sampling: GREEDY, seed: 0, logprobs: 2 });
  assert.deepEqual(out.prompt_ids, ids);
  assert.deepEqual(out.token_ids, want.tokens.map((t) => t.id));
  assert.equal(out.kv_cache_dtype, 'fp8_e4m3');
  assert.equal(out.logprobs.length, 12);
  assert.equal(out.logprobs[3].top_logprobs.length, 2);
  assert.ok(Math.abs(out.logprobs[3].logprob - want.tokens[3].logprob) < 1e-12);
  assert.ok(out.notes.some((n: string) => /--enforce-eager accepted without effect/.test(n)));
});

test('sm100-affected with Q quantization disabled names the fault model as a model, in JSON and in text', async () => {
  const flags = ['engine', 'generate', '--model', dir, '--prompt-ids', '256,65,66', '--max-tokens', '4', '--emulate', 'sm100-affected', '--attention-config.disable_flashinfer_q_quantization=true'];
  const j = await runCli([...flags, '--json']);
  assert.equal(j.code, 0, j.stderr);
  const out = JSON.parse(j.stdout);
  assert.equal(out.attention.backend, 'FLASHINFER');
  assert.equal(out.attention.bookkeeping, 'vllm-affected');
  assert.equal(out.attention.fault_model.name, 'trtllm-gen-swa-specdec');
  assert.equal(out.attention.fault_model.is_a_model, true);
  assert.match(out.attention.fault_model.summary, /a MODEL/);
  assert.deepEqual(Object.keys(out.attention.kernel_calls).sort(), ['native-prefill', 'trtllm-gen-decode']);
  const t = await runCli(flags);
  assert.equal(t.code, 0, t.stderr);
  assert.match(t.stderr, /note: fault model trtllm-gen-swa-specdec: a MODEL/);
});

test('bad input exits 2 with a message and a hint, never a stack trace (in-process CLI)', async () => {
  const cases: [string[], RegExp][] = [
    [['--prompt', 'x', '--speculative-config', '{"method":"ngram","num_speculative_tokens":3}'], /--speculative-config is a vLLM flag the faultline engine does not implement/],
    [['--prompt', 'x', '--no-such-flag'], /unknown vLLM flag --no-such-flag/],
    [['--prompt', 'x', '--attention-backend', 'TRITON_ATTN'], /attention backend TRITON_ATTN is not implemented/],
    [['--prompt', 'x', '--kv-cache-dtype', 'fp8_e5m2'], /--kv-cache-dtype fp8_e5m2 is not implemented/],
    [['--prompt', 'x', '--block-size', '128'], /--block-size 128 is not supported/],
    [['--prompt', 'x', '--attention-config.use_cudnn_prefill=true'], /attention_config.use_cudnn_prefill is not implemented/],
    [['--prompt', 'x', '--max-tokens', '600'], /exceeds the maximum context length 512/],
    [['--prompt-ids', '1,999'], /"999" is not a token id/],
    [['--prompt', 'x', '--prompt-ids', '1'], /either --prompt or --prompt-ids/],
    [[], /no prompt/],
  ];
  for (const [extra, re] of cases) {
    const io = memoryIO();
    const code = await main(['engine', 'generate', '--model', dir, ...extra], io);
    assert.equal(code, 2, `${extra.join(' ')}: ${io.stderr()}`);
    assert.match(io.stderr(), re);
    assert.match(io.stderr(), /hint: /);
    assert.doesNotMatch(io.stderr(), /at .*\.ts:\d+/);
  }
  const io = memoryIO();
  assert.equal(await main(['engine', 'generate', '--model', join(dir, 'missing'), '--prompt', 'x'], io), 2);
  assert.match(io.stderr(), /model directory .*missing does not exist/);
});

test('--help documents the presets and calls the fault model a model', async () => {
  const r = await runCli(['engine', 'generate', '--help']);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /sm100-affected/);
  assert.match(r.stdout, /fault MODEL\s+trtllm-gen-swa-specdec \(a model of an unpublished kernel defect\)/);
});
