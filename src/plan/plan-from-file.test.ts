import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { UserError } from '../core/errors.js';
import { parsePlan } from '../matrix/plan-load.js';
import { parseOnly, parseTarget, planTextFromFiles, type PlanFromFileOptions } from './plan-from-file.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const seed = (o: Partial<PlanFromFileOptions> = {}): PlanFromFileOptions => ({
  files: ['examples/seed-b200/serve.sh'],
  cwd: root,
  modelConfig: 'examples/seed-b200/config.json',
  gpu: 'B200',
  target: 'engine',
  ...o,
});

function tempLaunch(t: { after: (f: () => void) => void }, name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'fl-plan-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

test('the seed launch becomes a plan: a factor per feature it turns on, the reference at every safe level', () => {
  const text = planTextFromFiles(seed());
  const plan = parsePlan('plan.yaml', text); // the generated text is a valid plan
  assert.deepEqual(plan.space.names, ['kv_cache', 'speculative', 'q_quantization', 'attention_backend', 'prefix_caching', 'chunked_prefill', 'block_size', 'cuda_graphs']);
  const levelsOf = (f: string): readonly string[] => plan.space.levels[plan.space.names.indexOf(f)];
  assert.deepEqual(levelsOf('kv_cache'), ['bf16', 'fp8_e4m3']);
  // the launch's depth (k = 7, q_len_per_req 8) and one draft token between
  assert.deepEqual(levelsOf('speculative'), ['off', 'mtp-k1', 'mtp-k7']);
  assert.deepEqual(levelsOf('q_quantization'), ['enabled', 'disabled']);
  // the reference is the first (safe) level of every factor
  assert.deepEqual(plan.baseline, plan.space.names.map(() => 0));
  // disabling FlashInfer's query quantization only exists with FlashInfer
  const data = parse(text) as { constraints: { if: Record<string, string>; then: Record<string, string> }[]; probe: Record<string, unknown> };
  assert.deepEqual(data.constraints.map((c) => [c.if, c.then]), [[{ attention_backend: 'REFERENCE' }, { q_quantization: 'enabled' }]]);
  // the engine target probes the engine's model: tiny-swa's 128-token window and the launch's page
  assert.equal(data.probe.window, 128);
  assert.equal(data.probe.page_size, 16);
  assert.equal(data.probe.suite, 'window-crossing');
  // the drafter checkpoint is the launch's, not the engine's: the engine drafts with its own head
  assert.doesNotMatch(text, /gemma-4-31B-it-assistant/);
  // comments say why each factor is there, citing the hazards whose conditions mention it
  assert.match(text, /# quantized KV caches change attention numerics[^\n]*FL001/);
  assert.match(text, /# verification runs k\+1 query rows[^\n]*FL013/);
  // deterministic: `matrix --from` can resume the run it started
  assert.equal(planTextFromFiles(seed()), text);
});

test("the vllm target keeps the launch's own command, model and flags", (t) => {
  const file = tempLaunch(t, 'serve.sh', 'vllm serve org/model --kv-cache-dtype fp8 --gpu-memory-utilization 0.85 --tensor-parallel-size 2 --max-model-len 8192 --port 9000\n');
  const text = planTextFromFiles({ files: [file], cwd: root, target: 'vllm' });
  const data = parse(text) as { launch: { argv: string[] }; factors: Record<string, { levels: Record<string, unknown> }> };
  assert.deepEqual(data.launch.argv, ['vllm', 'serve', 'org/model', '--max-model-len', '8192', '--gpu-memory-utilization', '0.85', '--port', '{port}']);
  assert.deepEqual(Object.keys(data.factors.tensor_parallel.levels), ['1', '2']);
  assert.deepEqual(Object.keys(data.factors.kv_cache.levels), ['bf16', 'fp8']);
  parsePlan('plan.yaml', text);

  // the engine target leaves out what the engine does not implement, and says so
  const engine = planTextFromFiles({ files: [file], cwd: root, target: 'engine' });
  assert.match(engine, /# Left out \(the engine does not implement them\): --gpu-memory-utilization/);
  assert.doesNotMatch(engine, /argv: \[[^\]]*--gpu-memory-utilization/);
});

test('a launch with nothing to vary, an unknown --only factor and several launches are refused', (t) => {
  const plain = tempLaunch(t, 'plain.sh', 'vllm serve org/model --enforce-eager --no-enable-prefix-caching --no-enable-chunked-prefill\n');
  assert.throws(() => planTextFromFiles({ files: [plain], cwd: root, target: 'vllm' }), (e: unknown) => e instanceof UserError && e.code === 'E_PLAN_NOTHING');
  assert.throws(
    () => planTextFromFiles(seed({ only: ['kv_cache', 'kv_dtype'] })),
    (e: unknown) => e instanceof UserError && /kv_dtype/.test(e.message) && /kv_cache, speculative/.test(e.hint ?? ''),
  );
  const only = parsePlan('plan.yaml', planTextFromFiles(seed({ only: ['kv_cache', 'speculative', 'q_quantization'] })));
  assert.deepEqual(only.space.names, ['kv_cache', 'speculative', 'q_quantization']);
  assert.equal(only.strength, 3);

  const two = tempLaunch(t, 'two.sh', 'vllm serve a --kv-cache-dtype fp8 &\nvllm serve b --kv-cache-dtype fp8\n');
  assert.throws(() => planTextFromFiles({ files: [two], cwd: root, target: 'vllm' }), (e: unknown) => e instanceof UserError && /--launch N/.test(e.hint ?? ''));
  assert.match(planTextFromFiles({ files: [two], cwd: root, target: 'vllm', launch: 2 }), /argv: \[ vllm, serve, b,/);
  assert.throws(() => planTextFromFiles({ files: [two], cwd: root, target: 'vllm', launch: 3 }), UserError);

  assert.throws(() => parseTarget('sglang'), UserError);
  assert.throws(() => parseOnly(' , '), UserError);
});
