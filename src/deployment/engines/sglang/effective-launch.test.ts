import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LayerKind, ModelFacts } from '../../deployment.js';
import type { ArgValue } from '../../vllm-parse-types.js';
import { resolveEffectiveLaunch } from './effective-launch.js';
import { loadTable } from './flag-table.js';

const facts = (architecture: string, modelType: string): ModelFacts => ({
  source: 'config.json',
  modelType,
  architectures: [architecture],
  layers: Array<LayerKind>(4).fill('full'),
  notes: [],
});
const llama = facts('LlamaForCausalLM', 'llama');
const qwen = facts('Qwen3ForCausalLM', 'qwen3');
const gptOss = facts('GptOssForCausalLM', 'gpt_oss');
const deepseek = facts('DeepseekV3ForCausalLM', 'deepseek_v3');

function run(args: Record<string, unknown>, o: { sm?: number; model?: ModelFacts; version?: string } = {}) {
  const written = new Map<string, ArgValue>(Object.entries(args).map(([k, value]) => [k, { value }]));
  const r = resolveEffectiveLaunch({
    written,
    defaults: loadTable('main').fieldDefaults,
    ...(o.sm !== undefined ? { sm: o.sm } : {}),
    ...(o.model ? { modelFacts: o.model } : {}),
    ...(o.version ? { version: o.version } : {}),
  });
  return { get: (f: string) => r.args.get(f)?.value, r };
}

test('NEXTN is rewritten to EAGLE (upper-casing first), and EAGLE caps running requests at 48', () => {
  const x = run({ speculative_algorithm: 'nextn' }, { sm: 90, model: qwen });
  assert.equal(x.get('speculative_algorithm'), 'EAGLE');
  assert.equal(x.get('max_running_requests'), 48);
  assert.equal(
    run({ speculative_algorithm: 'EAGLE', max_running_requests: 64 }, { sm: 90, model: qwen }).get(
      'max_running_requests',
    ),
    64,
  );
});

test('speculative defaults: Llama 5/4/8, others 3/1/4 then draft tokens = steps + 1 at top-k 1; unknown without a model', () => {
  const l = run({ speculative_algorithm: 'EAGLE' }, { sm: 90, model: llama });
  assert.deepEqual(
    [l.get('speculative_num_steps'), l.get('speculative_eagle_topk'), l.get('speculative_num_draft_tokens')],
    [5, 4, 8],
  );
  const q = run({ speculative_algorithm: 'EAGLE3' }, { sm: 90, model: qwen });
  assert.deepEqual(
    [q.get('speculative_num_steps'), q.get('speculative_eagle_topk'), q.get('speculative_num_draft_tokens')],
    [3, 1, 4],
  );
  const given = run(
    {
      speculative_algorithm: 'EAGLE',
      speculative_num_steps: 5,
      speculative_eagle_topk: 1,
      speculative_num_draft_tokens: 8,
    },
    { sm: 90, model: qwen },
  );
  assert.equal(given.get('speculative_num_draft_tokens'), 6);
  const noModel = run({ speculative_algorithm: 'EAGLE' }, { sm: 90 });
  assert.match(noModel.r.unknown.get('speculative_eagle_topk') ?? '', /model architecture/);
  const ngram = run({ speculative_algorithm: 'NGRAM' }, { sm: 90, model: qwen });
  assert.equal(ngram.get('speculative_num_draft_tokens'), 12);
});

test('default attention backend, SGLang main: per GPU, model and speculative top-k as written', () => {
  assert.equal(run({}, { sm: 90, model: qwen }).get('attention_backend'), 'fa3');
  assert.equal(run({}, { sm: 100, model: qwen }).get('attention_backend'), 'trtllm_mha');
  assert.equal(run({}, { sm: 103, model: qwen }).get('attention_backend'), 'trtllm_mha');
  assert.equal(run({}, { sm: 120, model: qwen }).get('attention_backend'), 'flashinfer');
  // EAGLE on SM100 without --speculative-eagle-topk: not trtllm_mha (chosen before SGLang fills top-k in).
  assert.equal(
    run({ speculative_algorithm: 'EAGLE' }, { sm: 100, model: qwen }).get('attention_backend'),
    'flashinfer',
  );
  assert.equal(
    run({ speculative_algorithm: 'EAGLE', speculative_eagle_topk: 1 }, { sm: 100, model: qwen }).get(
      'attention_backend',
    ),
    'trtllm_mha',
  );
  assert.equal(run({}, { sm: 90, model: gptOss }).get('attention_backend'), 'fa3');
  assert.equal(run({}, { sm: 80, model: gptOss }).get('attention_backend'), 'triton');
  assert.equal(run({}, { sm: 100, model: deepseek }).get('attention_backend'), 'trtllm_mla');
  assert.equal(run({}, { sm: 90, model: deepseek }).get('attention_backend'), 'fa3');
});

test('default attention backend per release: 0.5.4 has no Blackwell rule, 0.5.6 picks trtllm_mha on SM12x too, older is unknown', () => {
  assert.equal(
    run({}, { sm: 100, model: qwen, version: '0.5.4.post3' }).get('attention_backend'),
    'flashinfer',
  );
  assert.equal(
    run({}, { sm: 120, model: qwen, version: '0.5.6.post2' }).get('attention_backend'),
    'trtllm_mha',
  );
  assert.equal(
    run({}, { sm: 90, model: facts('MistralForCausalLM', 'mistral'), version: '0.5.6' }).get(
      'attention_backend',
    ),
    'flashinfer',
    'not an FA3-default architecture',
  );
  const old = run({}, { sm: 100, model: qwen, version: '0.4.10' });
  assert.equal(old.get('attention_backend'), undefined);
  assert.match(old.r.unknown.get('attention_backend') ?? '', /before 0\.5\.4/);
  assert.match(run({}, { model: qwen }).r.unknown.get('attention_backend') ?? '', /GPU is not known/);
});

test('page size forced by the backend; unset becomes 1; fa3 + fp8_e5m2 falls back to triton', () => {
  const t = run({}, { sm: 100, model: qwen });
  assert.equal(t.get('page_size'), 64, 'trtllm_mha: 16, 32 or 64');
  assert.equal(run({ page_size: 32 }, { sm: 100, model: qwen }).get('page_size'), 32);
  assert.equal(run({ attention_backend: 'cutlass_mla' }, { sm: 100, model: deepseek }).get('page_size'), 128);
  assert.equal(run({ attention_backend: 'flashmla' }, { sm: 90, model: deepseek }).get('page_size'), 64);
  assert.equal(run({ attention_backend: 'triton' }, { sm: 90, model: qwen }).get('page_size'), 1);
  assert.equal(
    run({ kv_cache_dtype: 'fp8_e5m2' }, { sm: 90, model: qwen }).get('attention_backend'),
    'triton',
  );
  const rewrite = t.r.rewrites.find((x) => x.field === 'page_size');
  assert.match(rewrite?.why ?? '', /trtllm_mha supports page sizes 16, 32, 64/);
});

test('a prefill and decode backend that agree become the backend', () => {
  assert.equal(
    run({ prefill_attention_backend: 'fa4', decode_attention_backend: 'fa4' }, { sm: 90, model: qwen }).get(
      'attention_backend',
    ),
    'fa4',
  );
});
