import { defineHazard } from '../hazard.js';
import { cudaBackend, kvTypesWithoutCudaFa, llamaFlashAttention } from '../conditions/llama-cpp.js';

/** ggml-org/llama.cpp#27109 (PR #27140 open): K ≠ V cache types or q4_1 / q5_x put flash attention on the CPU. */
export const FL302 = defineHazard({
  id: 'FL302',
  alias: 'llama-kv-types-fa-on-cpu',
  engines: ['llama.cpp'],
  severity: 'warning',
  summary:
    'llama-server on CUDA with flash attention and K and V cache types that differ (or q4_1 / q5_0 / q5_1 / iq4_nl) runs flash attention on the CPU, silently (a note: output is right, ~34 instead of ~1,147 tokens/s in the report)',
  mechanism:
    'A default CUDA build compiles flash-attention kernels only for K/V type pairs of the same type among f16, q8_0 and q4_0 ' +
    '(GGML_CUDA_FA_ALL_QUANTS builds the rest). For any other pair the scheduler finds no CUDA kernel for the op and ' +
    'places it on the CPU backend, copying K and V across every step, "with zero error messages".',
  affected: {
    llamaCpp:
      'reported in ggml-org/llama.cpp#27109 (2026); PR #27140, which would warn or build the pairs, is open: default CUDA builds until it merges',
  },
  confidence: 'reported',
  conditions: [kvTypesWithoutCudaFa(), llamaFlashAttention({ autoCounts: true }), cudaBackend()],
  locateAt: 'kv-types-without-cuda-fa-kernel',
  remedies: [
    {
      id: 'same-kv-types',
      change: { set: { cache_type_k: 'q8_0', cache_type_v: 'q8_0' } },
      why: 'q8_0 / q8_0 has a CUDA flash-attention kernel in every build: the op stays on the GPU',
    },
  ],
  nonRemedies: [
    {
      id: 'flash-attention-off',
      change: { set: { flash_attn: 'off' } },
      avoidsBy: 'flash-attention',
      why: 'no flash attention at all: a quantized V cache then cannot be used (llama.cpp refuses it), and long contexts pay the non-FA path',
    },
  ],
  examples: {
    failing: {
      command:
        'llama-server -m /models/Qwen3-30B-A3B-Q4_K_M.gguf -ngl 99 -fa on -ctk q8_0 -ctv q4_0 -c 32768',
      gpu: 'NVIDIA GeForce RTX 4090',
      points: '-ctk',
    },
    clean: {
      command:
        'llama-server -m /models/Qwen3-30B-A3B-Q4_K_M.gguf -ngl 99 -fa on -ctk q8_0 -ctv q8_0 -c 32768',
      gpu: 'NVIDIA GeForce RTX 4090',
    },
  },
  references: [
    {
      title:
        'ggml-org/llama.cpp#27109: q4_1 or mismatched K/V cache types silently run flash attention on the CPU (~34 vs ~1,147 t/s)',
      url: 'https://github.com/ggml-org/llama.cpp/issues/27109',
    },
    { title: 'ggml-org/llama.cpp PR #27140 (open)', url: 'https://github.com/ggml-org/llama.cpp/pull/27140' },
  ],
  docs: {
    problem:
      'Generation is dozens of times slower than the same launch with matching cache types, and the GPU sits mostly idle; ' +
      'the log says nothing. Benchmarks run with default cache types do not show it.',
    exceptions:
      'A build made with GGML_CUDA_FA_ALL_QUANTS=ON has the kernels and is not affected; lint cannot see the build flags. ' +
      'Without --gpu the backend is unknown (Vulkan, Metal and CPU builds are not this report).',
  },
});
