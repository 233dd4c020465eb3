import { defineHazard } from '../hazard.js';
import { flashInferBackend } from '../conditions/attention-backend.js';
import { cudaGraphsOn } from '../conditions/cudagraphs.js';
import { gpuFamily } from '../conditions/gpu.js';
import { fp8KvCache } from '../conditions/kv-cache.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm#41651: FlashInfer + FP8 KV + CUDA graphs gives random tokens on SM120. */
export const FL025 = defineHazard({
  id: 'FL025',
  alias: 'fi-fp8kv-cudagraph-sm120',
  engines: ['vllm'],
  severity: 'warning',
  summary:
    'FlashInfer with an FP8 KV cache and CUDA graphs on an SM12x GPU (RTX PRO 6000) produced random tokens for longer prompts (flashinfer-python 0.6.8.post1)',
  mechanism:
    'Not established: the issue was closed without a stated resolution. Short prompts were correct, TRITON_ATTN was ' +
    'correct on the same input, and --enforce-eager removed the random tokens.',
  affected: { flashinfer: 'reported with 0.6.8.post1; closed, resolution not stated' },
  confidence: 'reported',
  conditions: [
    gpuFamily(120),
    flashInferBackend(),
    fp8KvCache(),
    cudaGraphsOn(),
    affectedVersion({
      pkg: 'flashinfer',
      firstReported: '0.6.8.post1',
      lastReported: '0.6.8.post1',
      fixedBy: 'an unidentified change (the issue was closed without naming one)',
      record: 'reported with flashinfer-python 0.6.8.post1; closed, resolution not stated',
    }),
  ],
  locateAt: 'flashinfer-backend',
  remedies: [
    {
      id: 'triton-backend',
      change: { set: { attention_backend: 'TRITON_ATTN' } },
      why: 'the workaround on the record: correct output',
    },
    {
      id: 'enforce-eager',
      change: { add: '--enforce-eager' },
      why: 'removed the random tokens in the report; a milder repetition loop remained, which the reporter treats as a separate issue',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command: 'vllm serve Qwen/Qwen3-32B --attention-backend FLASHINFER --kv-cache-dtype fp8',
      gpu: 'NVIDIA RTX PRO 6000 Blackwell Server Edition',
      flashinfer: '0.6.8.post1',
      points: '--attention-backend',
    },
    clean: {
      command: 'vllm serve Qwen/Qwen3-32B --attention-backend TRITON_ATTN --kv-cache-dtype fp8',
      gpu: 'NVIDIA RTX PRO 6000 Blackwell Server Edition',
      flashinfer: '0.6.8.post1',
    },
  },
  references: [
    {
      title:
        'vllm-project/vllm#41651: FlashInfer attention + FP8 KV cache + CUDA graphs produces random output on RTX 6000 Pro Blackwell (sm_120); TRITON_ATTN backend works',
      url: 'https://github.com/vllm-project/vllm/issues/41651',
    },
  ],
  docs: {
    problem:
      'On an RTX PRO 6000 Blackwell, FlashInfer with an FP8 KV cache answers longer prompts with random tokens ("purdude ' +
      'head Magnus cz …"); ~30-token prompts were fine.',
    exceptions:
      'One report, closed without a stated fix: FlashInfer releases other than 0.6.8.post1 are unknown. A crash with NVFP4 ' +
      'weights + FP8 KV on SM120 (vllm#54225) is loud and not covered here.',
  },
});
