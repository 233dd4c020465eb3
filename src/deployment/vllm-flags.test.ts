import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseFlagTable } from './vllm-flag-table.js';
import { buildFlagIndex, closest, destOf, editDistance, longOptionOf } from './vllm-flags.js';

const VLLM_FLAGS = chooseFlagTable(undefined).table.specs;
const newestIndex = (extra: Parameters<typeof buildFlagIndex>[1] = []) => buildFlagIndex(VLLM_FLAGS, extra);

test('every dest is unique and every option string maps to one flag', () => {
  const dests = VLLM_FLAGS.map((f) => f.dest);
  assert.equal(new Set(dests).size, dests.length);
  const seen = new Map<string, string>();
  for (const f of VLLM_FLAGS) {
    for (const opt of [longOptionOf(f.dest), ...(f.aliases ?? [])]) {
      assert.equal(seen.get(opt), undefined, `${opt} is registered twice`);
      seen.set(opt, f.dest);
    }
    if (f.kind === 'choice') assert.ok((f.choices ?? []).length > 0, `${f.dest} has no choices`);
  }
});

test('the short aliases of the research notes resolve to their dests', () => {
  const index = newestIndex();
  const expected: Record<string, string> = {
    '-tp': 'tensor_parallel_size',
    '-pp': 'pipeline_parallel_size',
    '-dp': 'data_parallel_size',
    '-dcp': 'decode_context_parallel_size',
    '-pcp': 'prefill_context_parallel_size',
    '-q': 'quantization',
    '-ac': 'attention_config',
    '-cc': 'compilation_config',
    '-n': 'nnodes',
    '-r': 'node_rank',
    '-dpl': 'data_parallel_size_local',
    '-ep': 'enable_expert_parallel',
  };
  for (const [opt, dest] of Object.entries(expected)) assert.equal(index.lookup(opt)?.spec.dest, dest, opt);
  assert.deepEqual(index.lookup('--no-enforce-eager'), {
    spec: index.lookup('--enforce-eager')?.spec,
    negated: true,
  });
  assert.equal(index.lookup('--no-kv-cache-dtype'), undefined);
});

test('every flag used in the launch-config fixtures is known', () => {
  // From test/fixtures/launch-configs/SOURCES.md (the flags the fixtures pass to vLLM).
  const used = [
    '--served-model-name',
    '--trust-remote-code',
    '--dtype',
    '--quantization',
    '--gpu-memory-utilization',
    '--max-model-len',
    '--max-num-batched-tokens',
    '--max-num-seqs',
    '--port',
    '--tool-call-parser',
    '--kv-cache-dtype',
    '--disable-log-requests',
    '--model',
    '--host',
    '--tensor-parallel-size',
    '--enable-prefix-caching',
    '--enable-auto-tool-choice',
    '--speculative-config',
    '--swap-space',
    '--enable-chunked-prefill',
    '--speculative-model',
    '--use-v2-block-manager',
    '--num-speculative-tokens',
    '--download-dir',
    '--kv-transfer-config',
    '--reasoning-parser',
    '--language-model-only',
    '--pipeline-parallel-size',
    '--data-parallel-size',
    '--enable-expert-parallel',
    '--no-enable-prefix-caching',
    '--async-scheduling',
    '--compilation-config',
    '--attention-config',
    '--config',
    '--load-format',
    '--attention-backend',
    '--diffusion-config',
    '--override-generation-config',
    '--chat-template',
    '--default-chat-template-kwargs',
    '--limit-mm-per-prompt',
    '--structured-outputs-config',
    '--generation-config',
    '--mm-encoder-tp-mode',
    '--max-cudagraph-capture-size',
    '--uvicorn-log-level',
    '--enforce-eager',
    '--enable-lora',
    '--no-enable-prefix-caching',
  ];
  // Known when the version is not: the newest table plus every older release's flags.
  const index = chooseFlagTable(undefined).index;
  for (const opt of used) assert.ok(index.lookup(opt), opt);
});

test('extra flags extend the table and win over a built-in flag of the same dest', () => {
  const index = newestIndex([
    { dest: 'emulate', kind: 'string' },
    { dest: 'seed', kind: 'string' },
  ]);
  assert.equal(index.lookup('--emulate')?.spec.kind, 'string');
  assert.equal(index.lookup('--seed')?.spec.kind, 'string');
  assert.equal(newestIndex().lookup('--seed')?.spec.kind, 'int');
  assert.equal(newestIndex().lookup('--emulate'), undefined);
});

test('names and suggestions', () => {
  assert.equal(destOf('--kv-cache-dtype'), 'kv_cache_dtype');
  assert.equal(longOptionOf('kv_cache_dtype'), '--kv-cache-dtype');
  assert.equal(editDistance('kitten', 'sitting'), 3);
  assert.equal(closest('--kv-cach-dtype', ['--kv-cache-dtype', '--dtype']), '--kv-cache-dtype');
  assert.equal(closest('--speculative', ['--speculative-config', '--port']), '--speculative-config');
  assert.equal(closest('--zzzzzzzzzz', ['--port']), undefined);
});
