import { defineHazard } from '../hazard.js';
import { fullCudaGraphs } from '../conditions/cudagraphs.js';
import { turboQuantKvCache } from '../conditions/kv-cache.js';
import { speculativeDecoding } from '../conditions/speculative.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm#40831 / #53180: TurboQuant KV × speculative decoding × FULL CUDA graphs. */
export const FL007 = defineHazard({
  id: 'FL007',
  alias: 'turboquant-kv-specdec-full-cudagraph',
  engines: ['vllm'],
  severity: 'warning',
  summary:
    'a TurboQuant KV cache with speculative decoding under FULL CUDA graphs replays verify batches with captured dummy metadata: degenerate loops and garbage tokens',
  mechanism:
    'The TurboQuant attention builder declares that uniform batches may be FULL-captured, yet does not support ' +
    'spec-as-decode, so verify batches (q_len = 1 + k) are captured although the backend handles them in a per-request ' +
    'Python prefill loop driven by host-side metadata. Capture bakes in the dummy metadata (seq_lens 1, a negative ' +
    'cached length) and every replay reuses it (analysis in open PR #53406).',
  affected: { vllm: 'through 0.27.1 (stock image reproduces); fix PR #53406 open' },
  confidence: 'reported',
  conditions: [
    turboQuantKvCache(),
    speculativeDecoding({
      maxCleanQueryLen: 2,
      note: () =>
        'num_speculative_tokens 1 instead crashes with an illegal memory access (vllm#52475), which is loud',
    }),
    fullCudaGraphs(),
    affectedVersion({ pkg: 'vllm', record: 'reported through 0.27.1; open (PR #53406)' }),
  ],
  locateAt: 'turboquant-kv-cache',
  remedies: [
    {
      id: 'enforce-eager',
      change: { add: '--enforce-eager' },
      why: 'no CUDA graphs, so verify batches run with their real metadata (cleared it in vllm#40831)',
    },
    {
      id: 'no-cuda-graphs',
      change: { set: { 'compilation_config.cudagraph_mode': 'NONE' } },
      why: 'same effect without giving up torch.compile (cleared it in vllm#40831)',
    },
    {
      id: 'non-turboquant-kv-cache',
      change: { set: { kv_cache_dtype: 'auto' } },
      label: 'a non-TurboQuant --kv-cache-dtype (auto, fp8)',
      why: 'other backends support spec-as-decode under FULL graphs',
    },
    {
      id: 'no-speculative-decoding',
      change: { unset: 'speculative_config' },
      why: 'without verify batches nothing is mis-captured',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command: `vllm serve Qwen/Qwen3-8B --kv-cache-dtype turboquant_k8v4 --speculative-config '{"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 4}'`,
      points: '--kv-cache-dtype',
    },
    clean: {
      command: `vllm serve Qwen/Qwen3-8B --kv-cache-dtype turboquant_k8v4 --enforce-eager --speculative-config '{"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 4}'`,
    },
  },
  references: [
    {
      title:
        'vllm-project/vllm#40831: TurboQuant KV × any speculative decoding (MTP or ngram) produces degenerate token loops',
      url: 'https://github.com/vllm-project/vllm/issues/40831',
    },
    {
      title:
        'vllm-project/vllm#53180: TurboQuant k8v4 + MTP speculative decoding silently produces degenerate output (v0.27.1, stock)',
      url: 'https://github.com/vllm-project/vllm/issues/53180',
    },
    {
      title:
        'vllm-project/vllm PR #53406: Do not FULL-capture spec-decode batches in TurboQuant attention backend (open)',
      url: 'https://github.com/vllm-project/vllm/pull/53406',
    },
  ],
  docs: {
    problem:
      'With --kv-cache-dtype turboquant_* and MTP or n-gram speculative decoding, some prompts produce repetition walls and ' +
      'garbage tokens. /health stays 200, no warning is logged, and acceptance metrics and throughput look normal. Dense ' +
      'and hybrid models on Ada and Ampere GPUs were reported.',
    exceptions:
      'With num_speculative_tokens 1 the same combination crashes with an illegal memory access instead (vllm#52475): ' +
      'loud, so not reported by this hazard.',
  },
});
