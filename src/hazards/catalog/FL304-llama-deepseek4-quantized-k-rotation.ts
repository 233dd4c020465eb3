import { defineHazard } from '../hazard.js';
import { kRotationOn, modelArchitecture, quantizedKvCache } from '../conditions/llama-cpp.js';

/** ggml-org/llama.cpp#25382 / #26423, fixed by #25202: DeepSeek-V4 × quantized K × the rotation → gibberish. */
export const FL304 = defineHazard({
  id: 'FL304',
  alias: 'llama-deepseek4-quantized-k-rotation',
  engines: ['llama.cpp'],
  severity: 'error',
  summary:
    'llama.cpp serving DeepSeek-V4 (deepseek4) with a quantized K cache, whose Hadamard rotation is on by default, answers confident gibberish on every backend, behind a healthy server',
  mechanism:
    'The rotation that llama.cpp turns on for a quantized K cache routed DeepSeek-V4’s layers off their sparse attention ' +
    'paths into build_raw_attention, which rotated with a plain ggml_mul_mat and never rotated back: attention scores ' +
    'are computed between rotated keys and unrotated queries. CPU and CUDA gave identical gibberish.',
  affected: {
    llamaCpp:
      'builds before ggml-org/llama.cpp PR #25202 (merged 2026-07-07 per the #26423 reporter’s retest; ggml ≤ 0.15.3 in the report; clean master c629da565); the first fixed build number is not on record',
  },
  confidence: 'confirmed',
  conditions: [
    modelArchitecture({
      archs: ['deepseek4', 'deepseek_v4'],
      what: 'DeepSeek-V4',
      modelNames: /deepseek[-_ ]?v4/i,
    }),
    quantizedKvCache('K'),
    kRotationOn(),
  ],
  locateAt: 'quantized-k-cache',
  remedies: [
    {
      id: 'f16-k-cache',
      change: { set: { cache_type_k: 'f16' } },
      why: 'no quantized K, no rotation: the reports’ f16 runs are coherent',
    },
    {
      id: 'rotation-off',
      change: { env: { LLAMA_ATTN_ROT_DISABLE: '1' } },
      inferred: true,
      why: 'deduced from the mechanism: without the rotation the layers keep their sparse paths (not a reported workaround; and a K shift then meets FL300)',
    },
  ],
  nonRemedies: [
    {
      id: 'flash-attention-off',
      change: { set: { flash_attn: 'off' } },
      why: 'the reports see the same gibberish on every backend and path: the rotation, not the attention kernel, is the cause',
    },
  ],
  examples: {
    failing: {
      command: 'llama-server -m /models/DeepSeek-V4-Flash-Q4_K_M.gguf -ctk q8_0 -fa on -ngl 99 -c 65536',
      model: 'gguf-deepseek-v4-flash',
      points: '-ctk',
    },
    clean: {
      command: 'llama-server -m /models/DeepSeek-V4-Flash-Q4_K_M.gguf -ctk f16 -fa on -ngl 99 -c 65536',
      model: 'gguf-deepseek-v4-flash',
    },
  },
  references: [
    {
      title:
        'ggml-org/llama.cpp#25382: DeepSeek-V4: quantized K-cache produces garbage on all backends — attention rotation forces the model off its sparse attention paths',
      url: 'https://github.com/ggml-org/llama.cpp/issues/25382',
    },
    {
      title: 'ggml-org/llama.cpp#26423: the reporter’s retest (without #25202 gibberish, with it coherent)',
      url: 'https://github.com/ggml-org/llama.cpp/issues/26423',
    },
    {
      title: 'ggml-org/llama.cpp PR #25202 (the fix, merged)',
      url: 'https://github.com/ggml-org/llama.cpp/pull/25202',
    },
  ],
  docs: {
    problem:
      'Every answer is fluent-looking nonsense while the server reports healthy, on CPU and CUDA alike. A health check ' +
      'that only asks for a response passes.',
    exceptions:
      'Fixed by PR #25202; lint cannot place a build number against it (the first fixed build is not on record), so a ' +
      'launch of a fixed build is still reported: check the build against the PR. The architecture comes from ' +
      '--model-config (a GGUF header says deepseek4) or, without it, from the model’s name.',
  },
});
