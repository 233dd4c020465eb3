import { defineHazard } from '../hazard.js';
import { uncalibratedKvScales } from '../conditions/checkpoint-scales.js';
import { kvCacheDtypeIn } from '../conditions/kv-cache.js';
import { modelTypeIs } from '../conditions/model-type.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm#41343: an FP8 E5M2 KV cache with default scales corrupts Qwen-VL output. */
export const FL035 = defineHazard({
  id: 'FL035',
  alias: 'fp8-e5m2-kv-qwen-vl',
  engines: ['vllm'],
  severity: 'warning',
  summary: 'an FP8 E5M2 KV cache with default (unit) scales silently corrupts Qwen2-VL / Qwen2.5-VL output',
  mechanism:
    'Not established. The report points at the default scaling: without calibrated k/v scales the cache stores values ' +
    'at scale 1.0, and E5M2 keeps only two mantissa bits.',
  affected: { vllm: 'reported on 0.19.0; open' },
  confidence: 'reported',
  conditions: [
    modelTypeIs({
      name: 'qwen-vl-model',
      family: 'Qwen2-VL / Qwen2.5-VL',
      prefixes: ['qwen2_vl', 'qwen2_5_vl'],
    }),
    kvCacheDtypeIn({ name: 'fp8-e5m2-kv-cache', dtypes: ['fp8_e5m2'], label: 'FP8 E5M2' }),
    uncalibratedKvScales(),
    affectedVersion({ pkg: 'vllm', firstReported: '0.19.0', record: 'reported on 0.19.0; open' }),
  ],
  locateAt: 'fp8-e5m2-kv-cache',
  remedies: [
    {
      id: 'model-dtype-kv-cache',
      change: { set: { kv_cache_dtype: 'auto' } },
      inferred: true,
      why: 'an unquantized cache (the model dtype, for a checkpoint that declares no FP8 KV) stores no E5M2 values',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command: 'vllm serve Qwen/Qwen2.5-VL-7B-Instruct --kv-cache-dtype fp8_e5m2',
      model: 'qwen2.5-vl-7b-instruct',
      vllm: '0.19.0',
      points: '--kv-cache-dtype',
    },
    clean: {
      command: 'vllm serve Qwen/Qwen2.5-VL-7B-Instruct',
      model: 'qwen2.5-vl-7b-instruct',
      vllm: '0.19.0',
    },
  },
  references: [
    {
      title:
        'vllm-project/vllm#41343: kv_cache_dtype="fp8_e5m2" silently corrupts output on Qwen-VL models (Qwen2-VL, Qwen2.5-VL) with default scaling',
      url: 'https://github.com/vllm-project/vllm/issues/41343',
    },
  ],
  docs: {
    problem:
      'Qwen2-VL and Qwen2.5-VL served with --kv-cache-dtype fp8_e5m2 answer with corrupted text; nothing is logged.',
    exceptions:
      'Whether FP8 E4M3, or E5M2 with calibrated scales, is affected is not in the record. The checkpoint must be inspected ' +
      '(--model-config with its directory) to know whether it carries k/v scales.',
  },
});
