import { defineHazard } from '../hazard.js';
import { kRotationOff, kShift, quantizedKvCache } from '../conditions/llama-cpp.js';

/**
 * faultline finding 003 (docs/findings/003-…): llama.cpp's K shift of a quantized K cache with no
 * Hadamard rotation dereferences a null rotation tensor; ggml-org/llama.cpp PR #25636 (open).
 */
export const FL300 = defineHazard({
  id: 'FL300',
  alias: 'llama-quantized-k-shift-no-rotation',
  engines: ['llama.cpp'],
  severity: 'error',
  summary:
    'llama-server with a quantized K cache, its Hadamard rotation off (LLAMA_ATTN_ROT_DISABLE=1, or a K head size not a multiple of 64) and a K shift (context shift, cache reuse) dies with SIGSEGV in build_rope_shift',
  mechanism:
    'llama_kv_cache::build_rope_shift dequantizes a quantized K, "rotates back" with llama_mul_mat_hadamard(ctx, tmp, rot), ' +
    'applies RoPE and rotates forward, unconditionally. rot comes from build_input_k_rot, which returns nullptr when ' +
    'attn_rot_k is false: with LLAMA_ATTN_ROT_DISABLE set, or for any model whose K head size is not a multiple of 64 ' +
    '(80, 96, 112). llama_mul_mat_hadamard reads rot->ne[0] first thing. Any K shift reaches it: context shift, and ' +
    "llama-server's --cache-reuse, which moves reused chunks with llama_memory_seq_add (the same position shift; faultline's " +
    'reproduction reached it through node-llama-cpp’s draft loop and through its context shift). The requests before the shift are answered correctly.',
  affected: {
    llamaCpp:
      'v0.4.0 (node-llama-cpp 3.21.1’s bundle) reproduced; the fix, ggml-org/llama.cpp PR #25636, is open (since 2026-07-13): every build with the rotation (2026) until it merges',
  },
  confidence: 'reproduced',
  confidenceReason:
    'faultline finding 003: a standalone node-llama-cpp script (llama.cpp v0.4.0, CPU) segfaults with q8_0 K + LLAMA_ATTN_ROT_DISABLE=1 + a K shift and is clean with the rotation on, with F16 K, or without the shift (one factor off each); PR #25636 names the same null rot in build_rope_shift, reached through --context-shift, and faultline’s context-shift matrix (examples/llama-cpp/context-shift.yaml, no draft) lost all 5 launches with q8_0 K and the rotation off at their first shift while the 5 without that pair passed',
  conditions: [quantizedKvCache('K'), kRotationOff(), kShift()],
  locateAt: 'quantized-k-cache',
  remedies: [
    {
      id: 'f16-k-cache',
      change: { set: { cache_type_k: 'f16' } },
      why: 'an unquantized K has no rotation to miss: F16 K with the rotation off and the shift read CLEAN (finding 003)',
    },
    {
      id: 'keep-rotation-on',
      change: { env: { LLAMA_ATTN_ROT_DISABLE: null } },
      why: 'with the rotation on, rot exists and the shift completes (finding 003: "same, rotation on — CLEAN, no crash"); for a model whose K head size is not a multiple of 64 this is not enough',
    },
    {
      id: 'no-context-shift',
      change: { add: '--no-context-shift' },
      why: 'no K shift, no build_rope_shift: finding 003’s runs without the shift (there: without the draft that asked for it) read CLEAN; PR #25636 names context shift as the trigger',
    },
  ],
  nonRemedies: [
    {
      id: 'flash-attention-off',
      change: { set: { flash_attn: 'off' } },
      why: 'finding 003: q8_0 K, rotation off and the shift with flash attention off still SIGSEGV',
    },
    {
      id: 'no-prompt-cache',
      change: { add: '--no-cache-prompt' },
      why: 'finding 003: with no cache-prompt it still SIGSEGVs; the shift does not come from prompt caching',
    },
  ],
  examples: {
    failing: {
      command:
        'LLAMA_ATTN_ROT_DISABLE=1 llama-server -m /models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf -ctk q8_0 --context-shift -c 4096',
      model: 'gguf-llama-3.1-8b',
      points: '-ctk',
    },
    clean: {
      command:
        'llama-server -m /models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf -ctk q8_0 --context-shift -c 4096',
      model: 'gguf-llama-3.1-8b',
    },
  },
  references: [
    {
      title:
        'ggml-org/llama.cpp PR #25636: llama : fix null pointer dereference by checking for rotation buffer in K-cache shifts (open)',
      url: 'https://github.com/ggml-org/llama.cpp/pull/25636',
    },
    {
      title:
        'ggml-org/llama.cpp#5652: a quantized KV cache with a KV seq shift (an earlier report on the same combination, closed 2024)',
      url: 'https://github.com/ggml-org/llama.cpp/issues/5652',
    },
  ],
  docs: {
    problem:
      'The server dies with SIGSEGV at the first K shift: a long conversation reaching the context size with context ' +
      'shift on, or a prompt whose cached chunks --cache-reuse moves. Nothing is wrong before the crash; a supervisor ' +
      'restarts it and the next long conversation crashes it again. Models with K head sizes of 80, 96 or 112 (phi-2, ' +
      'some Qwen and Mistral variants) get the null rotation without any environment.',
    exceptions:
      'Only a quantized K matters (a quantized V alone is not shifted). The K head size is read from --model-config (a ' +
      'GGUF header or config.json); without it, a launch that does not set LLAMA_ATTN_ROT_DISABLE is only possibly ' +
      'affected. Whether llama-server’s own speculative path shifts K, as node-llama-cpp’s does, is not established.',
  },
});
