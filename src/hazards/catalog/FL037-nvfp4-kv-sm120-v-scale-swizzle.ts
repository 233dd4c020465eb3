import { defineHazard } from '../hazard.js';
import { attentionBackendIs } from '../conditions/backend-is.js';
import { gpuFamily } from '../conditions/gpu.js';
import { kvCacheDtypeIn } from '../conditions/kv-cache.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm#50084: NVFP4 KV V block scales written in the SM100 swizzle, read linearly on SM120. */
export const FL037 = defineHazard({
  id: 'FL037',
  alias: 'nvfp4-kv-sm120-v-scale-swizzle',
  engines: ['vllm'],
  severity: 'warning',
  summary:
    'an NVFP4 KV cache on SM12x writes V block scales in the swizzle of the SM100 trtllm-gen kernels, which the SM12x FlashInfer path reads linearly: attention degrades silently',
  mechanism:
    'reshape_and_cache_nvfp4_kernel writes K block scales linearly and V block scales in the 4×4 swizzle the SM100 ' +
    'trtllm-gen MHA kernel needs — on every architecture. On SM12x the NVFP4 route (FA2 prefill, FlashInfer XQA decode) ' +
    'reads the V scales with plain strides and no de-swizzle, so V is dequantized with another block’s scale.',
  affected: {
    vllm: 'reported on 0.25.1 (flashinfer-python 0.6.15.post1); fix PRs #50085 and #50288 closed unmerged',
  },
  confidence: 'reported',
  conditions: [
    gpuFamily(120),
    kvCacheDtypeIn({ name: 'nvfp4-kv-cache', dtypes: ['nvfp4'], label: 'NVFP4' }),
    attentionBackendIs({ name: 'flashinfer-backend', backends: ['FLASHINFER'] }),
    affectedVersion({ pkg: 'vllm', firstReported: '0.25.1', record: 'reported on 0.25.1; open' }),
  ],
  locateAt: 'nvfp4-kv-cache',
  remedies: [
    {
      id: 'fp8-kv-cache',
      change: { set: { kv_cache_dtype: 'fp8_e4m3' } },
      why: 'FP8 KV has per-tensor scales, no block-scale layout to get wrong',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command: 'vllm serve nvidia/Qwen3.6-27B-NVFP4 --attention-backend FLASHINFER --kv-cache-dtype nvfp4',
      gpu: 'NVIDIA GeForce RTX 5090',
      model: 'qwen3.6-27b-nvfp4',
      vllm: '0.25.1',
      points: '--kv-cache-dtype',
    },
    clean: {
      command: 'vllm serve nvidia/Qwen3.6-27B-NVFP4 --attention-backend FLASHINFER --kv-cache-dtype fp8_e4m3',
      gpu: 'NVIDIA GeForce RTX 5090',
      model: 'qwen3.6-27b-nvfp4',
      vllm: '0.25.1',
    },
  },
  references: [
    {
      title:
        'vllm-project/vllm#50084: NVFP4 KV writes V block scales in the SM100 trtllm-gen swizzle unconditionally, silently corrupting the SM120 FlashInfer XQA route',
      url: 'https://github.com/vllm-project/vllm/issues/50084',
    },
    {
      title: 'vllm-project/vllm PR #50085: Write linear V block scales on SM120/SM121 KV cache (closed)',
      url: 'https://github.com/vllm-project/vllm/pull/50085',
    },
  ],
  docs: {
    problem:
      'On an RTX 5090 an NVFP4 KV cache degrades output without any error: every tensor has the right shape and dtype, ' +
      'only the V scales are read in the wrong order.',
    exceptions:
      'Which vLLM builds route NVFP4 KV through FlashInfer on SM12x at all is not established (upstream support was still ' +
      'being added in 2026-07); no attention backend given is unknown.',
  },
});
