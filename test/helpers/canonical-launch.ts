/**
 * The canonical corrupting launch as `engine serve` arguments, for tests that need a server with the
 * defect: the SM100 emulation with an FP8 KV cache and FlashInfer's Q quantization disabled (the
 * scale-bookkeeping defect), and with MTP speculation on top (the window-crossing defect as well).
 */
export const AFFECTED_FP8_BF16Q = [
  '--emulate',
  'sm100-affected',
  '--kv-cache-dtype',
  'fp8_e4m3',
  '--attention-config',
  '{"disable_flashinfer_q_quantization": true}',
] as const;

export const MTP7 = ['--speculative-config', '{"method":"mtp","num_speculative_tokens":7}'] as const;

/** All three features of the canonical case: output corrupts past the window. */
export const CANONICAL_CORRUPT = [...AFFECTED_FP8_BF16Q, ...MTP7] as const;

/** The same server with a BF16 KV cache: the clean reference. */
export const BF16_REFERENCE = ['--kv-cache-dtype', 'bfloat16'] as const;
