import { defineHazard } from '../hazard.js';
import { flashInferBackend } from '../conditions/attention-backend.js';
import { cudaGraphsOn } from '../conditions/cudagraphs.js';
import { gpuFamily } from '../conditions/gpu.js';
import { kvCacheDtypeIn } from '../conditions/kv-cache.js';
import { trtllmGenDecode } from '../conditions/trtllm-decode.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm#55673: NVFP4 KV on FlashInfer's TensorRT-LLM attention gives invalid output on B200. */
export const FL038 = defineHazard({
  id: 'FL038',
  alias: 'nvfp4-kv-trtllm-b200',
  engines: ['vllm'],
  severity: 'warning',
  summary:
    'an NVFP4 KV cache on FlashInfer’s TensorRT-LLM attention on B200 made Qwen3.5-397B answer mostly empty or cut-off responses (GSM8K 4.5–6.5 % against 96.7 % with FP8 KV)',
  mechanism: 'Not established; the issue is open.',
  affected: { vllm: 'reported on 0.28.1rc1.dev199 with flashinfer-python 0.6.18; open' },
  confidence: 'reproduced',
  confidenceReason:
    'vllm#55673 changes only the KV dtype on the same model and GPU: GSM8K 6.5 % (64 sequences) and 4.6 % (512) with NVFP4 KV against 96.7 % with FP8 KV',
  conditions: [
    gpuFamily(100),
    flashInferBackend(),
    trtllmGenDecode(),
    kvCacheDtypeIn({ name: 'nvfp4-kv-cache', dtypes: ['nvfp4'], label: 'NVFP4' }),
    cudaGraphsOn(),
    affectedVersion({
      pkg: 'vllm',
      firstReported: '0.28.1rc1.dev199',
      record: 'reported on 0.28.1rc1.dev199 (flashinfer-python 0.6.18); open',
    }),
  ],
  locateAt: 'nvfp4-kv-cache',
  remedies: [
    {
      id: 'fp8-kv-cache',
      change: { set: { kv_cache_dtype: 'fp8' } },
      why: 'the matched FP8-KV control on the same FlashInfer path scored 96.7 %',
    },
  ],
  nonRemedies: [
    {
      id: 'fewer-concurrent-sequences',
      change: { set: { max_num_seqs: 64 } },
      why: 'it failed at 64 concurrent sequences as well as at 512',
    },
  ],
  examples: {
    failing: {
      command:
        'vllm serve Qwen/Qwen3.5-397B-A17B-FP8 --tensor-parallel-size 8 --attention-backend FLASHINFER --kv-cache-dtype nvfp4 --max-num-seqs 512',
      gpu: 'NVIDIA B200',
      vllm: '0.28.1rc1.dev199+g7c5dc571c',
      flashinfer: '0.6.18',
      points: '--kv-cache-dtype',
    },
    clean: {
      command:
        'vllm serve Qwen/Qwen3.5-397B-A17B-FP8 --tensor-parallel-size 8 --attention-backend FLASHINFER --kv-cache-dtype fp8 --max-num-seqs 512',
      gpu: 'NVIDIA B200',
      vllm: '0.28.1rc1.dev199+g7c5dc571c',
      flashinfer: '0.6.18',
    },
  },
  references: [
    {
      title:
        'vllm-project/vllm#55673: FlashInfer TensorRT-LLM NVFP4 KV cache produces invalid Qwen3.5-397B output on Blackwell',
      url: 'https://github.com/vllm-project/vllm/issues/55673',
    },
  ],
  docs: {
    problem:
      'On GSM8K, 93–95 % of Qwen3.5-397B-A17B-FP8 responses had no parseable answer with an NVFP4 KV cache; the same ' +
      'prompts, scorer and FlashInfer path with an FP8 KV cache scored 96.7 %. CUDA graphs were on in every run.',
    exceptions:
      'One model in the record; other models are reported as affected because the mechanism is not known. Releases before ' +
      'the reported nightly are unknown.',
  },
});
