import { defineHazard } from '../hazard.js';
import { compressedTensorsFp8KvScheme } from '../conditions/compressed-tensors-kv.js';
import { floatScaleBackend } from '../conditions/float-scale-backend.js';
import { kvScalesNotOne } from '../conditions/kv-scales.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm PR #34863: compressed-tensors FP8 KV scales never reach the float copies FlashInfer reads. */
export const FL011 = defineHazard({
  id: 'FL011',
  alias: 'ct-fp8kv-scale-not-propagated',
  engines: ['vllm'],
  severity: 'error',
  summary:
    'a compressed-tensors checkpoint with an FP8 kv_cache_scheme on FlashInfer (or AITER / FlashInfer MLA) attention leaves the float KV scales at their 1.0 default: garbage output',
  mechanism:
    'vLLM keeps each attention scale twice: a tensor (_k_scale …) and a host float (_k_scale_float …), both 1.0 until ' +
    'the checkpoint is loaded. CompressedTensorsKVCacheMethod overrides process_weights_after_loading and never ' +
    'copies the loaded scales into the floats. Backends that compute bmm1/bmm2 scales from the floats — FlashInfer ' +
    '(prefill, decode, DCP, tree attention), ROCm AITER unified attention, FlashInfer MLA / MLA sparse — then ' +
    'dequantize a cache written with the real scales as if every scale were 1.0. FlashAttention and Triton read the ' +
    'tensors and are unaffected; their q_scale_float == 1.0 assertions pass silently on the wrong default.',
  affected: {
    vllm: 'reported on 0.19.0 (FlashInfer 0.6.6); a maintainer commented "Fixed" on 2026-04-29 — first fixed release not established',
  },
  confidence: 'confirmed',
  conditions: [
    compressedTensorsFp8KvScheme(),
    kvScalesNotOne(),
    floatScaleBackend(),
    affectedVersion({
      pkg: 'vllm',
      firstReported: '0.19.0',
      lastReported: '0.19.0',
      fixedBy: 'a change a maintainer marked "Fixed" on 2026-04-29 (PR #34863 itself was closed)',
      record:
        'reported on 0.19.0; a maintainer commented "Fixed" on 2026-04-29, the first fixed release is not established',
    }),
  ],
  locateAt: 'float-scale-backend',
  remedies: [
    {
      id: 'flash-attn-backend',
      change: { set: { attention_backend: 'FLASH_ATTN' } },
      why: 'reads the loaded scale tensors, not the float copies',
    },
    {
      id: 'triton-backend',
      change: { set: { attention_backend: 'TRITON_ATTN' } },
      why: 'reads the loaded scale tensors, not the float copies',
    },
    {
      id: 'checkpoint-without-kv-scheme',
      change: { model: 'llama-3.1-8b-ct-fp8' },
      label: 'a BF16 KV cache: a checkpoint export without kv_cache_scheme',
      why: 'no quantized KV cache, so no KV scales to lose',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command:
        'vllm serve /models/llama-3.1-8b-fp8-kv --attention-backend FLASHINFER --tensor-parallel-size 8',
      gpu: 'NVIDIA L40S',
      model: 'llama-3.1-8b-ct-fp8-kv',
      vllm: '0.19.0',
      points: '--attention-backend',
    },
    clean: {
      command:
        'vllm serve /models/llama-3.1-8b-fp8-kv --attention-backend FLASH_ATTN --tensor-parallel-size 8',
      gpu: 'NVIDIA L40S',
      model: 'llama-3.1-8b-ct-fp8-kv',
      vllm: '0.19.0',
    },
  },
  references: [
    {
      title:
        'vllm-project/vllm PR #34863: [Bugfix] Fix compressed-tensors fp8 block assert and FlashInfer scale propagation',
      url: 'https://github.com/vllm-project/vllm/pull/34863',
    },
  ],
  docs: {
    problem:
      'A model quantized with llm-compressor that also quantizes its KV cache to FP8 answers with garbage when vLLM ' +
      'serves it on FlashInfer (reported on 8× L40S, vLLM 0.19.0, FlashInfer 0.6.6). Nothing fails: the server starts, ' +
      'requests return 200, and the same checkpoint on FlashAttention or Triton is fine.',
    exceptions:
      'Scales of exactly 1.0 equal the default and do no harm, so lint needs the checkpoint directory (its safetensors ' +
      'headers) to say more than "possibly". With no --attention-backend on a GPU outside the SM100 family, vLLM tries ' +
      'FLASH_ATTN first and falls back to FLASHINFER when FLASH_ATTN rejects the configuration; lint cannot tell which ' +
      'and reports "possibly". An explicit non-FP8 --kv-cache-dtype is overridden by the checkpoint in older vLLM and ' +
      'honoured in 2026 vLLM; the release that changed it is not established. The fix is known only from a maintainer ' +
      'comment, so versions after 0.19.0 are "possibly affected" until you check your build.',
  },
});
