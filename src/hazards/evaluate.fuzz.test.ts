/**
 * Property: the catalog never throws on any Deployment the parsers can produce — arguments of any
 * JSON type (YAML and dotted keys deliver strings, numbers, objects, arrays), any env, any GPU, missing
 * or odd model facts, any version text — and every finding it returns is consistent with the rule
 * (no not-met condition; possibly ⇔ some unknown). The formatters accept whatever it returns.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Deployment, LayerKind, ModelFacts } from '../deployment/deployment.js';
import { lintDeployments } from './evaluate.js';
import { formatJson } from './formatters/json.js';
import { formatSarif } from './formatters/sarif.js';
import { formatText } from './formatters/text.js';

const dests = [
  'attention_backend',
  'attention_config',
  'kv_cache_dtype',
  'kv_cache_dtype_skip_layers',
  'speculative_config',
  'speculative_model',
  'num_speculative_tokens',
  'max_model_len',
  'max_num_seqs',
  'block_size',
  'async_scheduling',
  'pipeline_parallel_size',
  'decode_context_parallel_size',
  'enforce_eager',
  'disable_sliding_window',
  'compilation_config',
  'reasoning_parser',
  'enable_auto_tool_choice',
  'tool_call_parser',
];
const keys = [
  'backend',
  'use_trtllm_attention',
  'disable_flashinfer_q_quantization',
  'method',
  'num_speculative_tokens',
  'cudagraph_mode',
  'parallel_drafting',
];
const scalar = fc.oneof(
  fc.constantFrom(
    'FLASHINFER',
    'auto',
    'fp8_e4m3',
    'fp8',
    'nvfp4',
    'turboquant_k8v4',
    'mtp',
    'suffix',
    'true',
    'false',
    '1',
    '0',
    'NONE',
    '32k',
    '',
  ),
  fc.boolean(),
  fc.integer({ min: -3, max: 300000 }),
  fc.constant(null),
  fc.string({ maxLength: 6 }),
);
const value = fc.oneof(
  scalar,
  fc.dictionary(fc.constantFrom(...keys), scalar, { maxKeys: 4 }),
  fc.array(scalar, { maxLength: 3 }),
);
const envNames = [
  'VLLM_ATTENTION_BACKEND',
  'VLLM_USE_TRTLLM_ATTENTION',
  'VLLM_FLASHINFER_DISABLE_Q_QUANTIZATION',
  'VLLM_BATCH_INVARIANT',
  'VLLM_USE_V2_MODEL_RUNNER',
];
const version = fc.option(
  fc.constantFrom('0.6.14', '0.6.18rc2', '0.23.1rc1.dev843+g04adc8843', '0.14.0', 'garbage', '1!2.0', ''),
  { nil: undefined },
);
const facts: fc.Arbitrary<ModelFacts | undefined> = fc.option(
  fc.record({
    source: fc.constant('config.json'),
    modelType: fc.option(fc.constantFrom('gemma4_text', 'gpt_oss', 'llama', 'qwen3_next'), {
      nil: undefined,
    }),
    layers: fc.array(fc.constantFrom<LayerKind>('full', 'sliding', 'chunked', 'linear'), { maxLength: 8 }),
    window: fc.option(fc.integer({ min: 1, max: 8192 }), { nil: undefined }),
    kvDtypeFromCheckpoint: fc.option(
      fc.constantFrom<'fp8_e4m3' | 'fp8_e5m2' | 'nvfp4'>('fp8_e4m3', 'fp8_e5m2', 'nvfp4'),
      { nil: undefined },
    ),
    scales: fc.option(
      fc.record({
        present: fc.record({ q: fc.boolean(), k: fc.boolean(), v: fc.boolean() }),
        q: fc.option(fc.array(fc.double({ noNaN: true }), { maxLength: 4 }), { nil: undefined }),
        k: fc.option(fc.array(fc.double({ noNaN: true }), { maxLength: 4 }), { nil: undefined }),
      }),
      { nil: undefined },
    ),
    notes: fc.constant([] as string[]),
  }),
  { nil: undefined },
);

const deployment: fc.Arbitrary<Deployment> = fc
  .record({
    args: fc.dictionary(fc.constantFrom(...dests), value, { maxKeys: 10 }),
    env: fc.dictionary(fc.constantFrom(...envNames), fc.constantFrom('1', '0', 'true', 'FLASHINFER', 'x'), {
      maxKeys: 3,
    }),
    sm: fc.option(fc.constantFrom(80, 90, 100, 103, 110, 120, 121), { nil: undefined }),
    facts,
    vllm: version,
    flashinfer: version,
  })
  .map((r) => {
    const at = { file: 'f.sh', line: 1, column: 1 };
    const d: Deployment = {
      source: { file: 'f.sh', kind: 'shell' },
      engine: 'vllm',
      args: new Map(Object.entries(r.args).map(([k, v]) => [k, { value: v, at }])),
      env: new Map(Object.entries(r.env).map(([k, v]) => [k, { value: v, at }])),
      versions: {},
      notes: [],
    };
    if (r.sm !== undefined) d.gpu = { value: { sm: r.sm } };
    if (r.facts) d.modelFacts = r.facts;
    if (r.vllm !== undefined) d.versions.vllm = { value: r.vllm };
    if (r.flashinfer !== undefined) d.versions.flashinfer = { value: r.flashinfer };
    return d;
  });

test('the catalog never throws and its findings obey the evaluation rule', () => {
  fc.assert(
    fc.property(deployment, (d) => {
      const findings = lintDeployments([d]);
      for (const f of findings) {
        assert.ok(f.conditions.every((c) => c.status !== 'not-met'));
        assert.equal(
          f.possibly,
          f.conditions.some((c) => c.status === 'unknown'),
        );
        assert.equal(f.severity, f.possibly ? 'warning' : f.hazard.severity);
      }
      formatText(findings, { color: false, launches: 1, hazards: 10 });
      JSON.parse(formatJson(findings, [d]));
      JSON.parse(formatSarif(findings));
    }),
    { numRuns: Number(process.env.FUZZ_RUNS ?? 400) },
  );
});
