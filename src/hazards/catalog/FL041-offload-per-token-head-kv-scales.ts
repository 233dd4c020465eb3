import { defineHazard } from '../hazard.js';
import { kvCacheDtypeIn } from '../conditions/kv-cache.js';
import { nativeKvOffload } from '../conditions/kv-offload.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm#48412 → PR #49226, and PR #48411: native KV offloading with per-token-head KV dtypes. */
export const FL041 = defineHazard({
  id: 'FL041',
  alias: 'offload-per-token-head-kv-scales',
  engines: ['vllm'],
  severity: 'error',
  summary:
    'vLLM’s native KV offloading (OffloadingConnector) with a per-token-head quantized KV cache (fp8/int8/int4_per_token_head) loses or aliases the inline per-token scales: garbage generations',
  mechanism:
    'The per-token-head KV dtypes store a scale per token and head inline next to the quantized K/V. The ' +
    'OffloadingConnector’s cross-layer block allocation did not pack those scales, so on single-group models served by a ' +
    'backend that indexes the cache by block stride (TRITON_ATTN) the scale views aliased K/V: the first generation was ' +
    'already garbage, before any block was offloaded or restored (vllm#48412, fixed by PR #49226, which turns cross-layer ' +
    'blocks off for these dtypes). On multi-group models the per-layer path transferred pages without the inline scales, ' +
    'so restored blocks were cut mid-cell and corrupted at any tensor-parallel size (fixed by PR #48411).',
  affected: {
    vllm: 'reported on v0.23.0; fixed by PR #48411 (merged 2026-07-12) and PR #49226 (2026-07-20); first release containing both not established',
  },
  confidence: 'confirmed',
  conditions: [
    nativeKvOffload({ connectors: ['OffloadingConnector'], viaOffloadingSize: true }),
    kvCacheDtypeIn({
      name: 'per-token-head-kv-cache',
      dtypes: ['fp8_per_token_head', 'int8_per_token_head', 'int4_per_token_head'],
      label: 'a per-token-head quantized cache',
    }),
    affectedVersion({
      pkg: 'vllm',
      lastReported: '0.23.0',
      fixedBy: 'PR #49226 (with PR #48411)',
      record:
        'reported on v0.23.0; fixed by PR #49226 and PR #48411 (merged July 2026), first release not established',
    }),
  ],
  locateAt: 'per-token-head-kv-cache',
  remedies: [
    {
      id: 'no-kv-offloading',
      change: { unset: ['kv_offloading_size', 'kv_transfer_config'] },
      label: 'drop --kv-offloading-size / the OffloadingConnector',
      why: 'without the connector the cache is allocated per layer with its scales, as without offloading in the reports',
    },
    {
      id: 'per-tensor-fp8-kv',
      change: { set: { kv_cache_dtype: 'fp8' } },
      inferred: true,
      why: 'a per-tensor FP8 cache keeps no inline scales, so there are none for the offload path to alias or cut; the fixes touch only the per-token-head dtypes',
    },
  ],
  nonRemedies: [
    {
      id: 'no-prefix-caching',
      change: { add: '--no-enable-prefix-caching' },
      why: 'the first generation was already garbage, before any block was offloaded or restored (vllm#48412): the aliasing is in the allocation, not in cache hits',
    },
  ],
  examples: {
    failing: {
      command:
        'vllm serve meta-llama/Llama-3.1-8B-Instruct --attention-backend TRITON_ATTN --kv-cache-dtype fp8_per_token_head --kv-offloading-size 16',
      model: 'llama-3.1-8b-instruct',
      vllm: '0.23.0',
      points: '--kv-cache-dtype',
    },
    clean: {
      command:
        'vllm serve meta-llama/Llama-3.1-8B-Instruct --attention-backend TRITON_ATTN --kv-cache-dtype fp8 --kv-offloading-size 16',
      model: 'llama-3.1-8b-instruct',
      vllm: '0.23.0',
    },
  },
  references: [
    {
      title:
        'vllm-project/vllm#48412: OffloadingConnector corrupts outputs with per-token-head quantized KV cache (cross-layer allocation lacks scale packing)',
      url: 'https://github.com/vllm-project/vllm/issues/48412',
    },
    {
      title: 'vllm-project/vllm PR #49226 (merged): no cross-layer blocks for per-token-head KV dtypes',
      url: 'https://github.com/vllm-project/vllm/pull/49226',
    },
    {
      title:
        'vllm-project/vllm PR #48411 (merged): include inline per-token-head scales in offloaded page transfer width',
      url: 'https://github.com/vllm-project/vllm/pull/48411',
    },
  ],
  docs: {
    problem:
      'With CPU KV offloading turned on (`--kv-offloading-size`) and a per-token-head quantized KV cache, answers are ' +
      'garbage from the first request (single-group models on TRITON_ATTN), or blocks restored from the CPU tier come back ' +
      'corrupted (multi-group models). The server logs nothing.',
    exceptions:
      'The single-group case was reported on TRITON_ATTN, whose cache is indexed by block stride; whether other backends ' +
      'alias the same way is not established, so lint does not require the backend. The first vLLM release with both ' +
      'fixes is not established: a version after 0.23.0 is "possibly affected".',
  },
});
