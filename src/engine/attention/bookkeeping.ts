/**
 * Scale bookkeeping: which bmm1/bmm2 scales the serving stack hands the attention kernel, as a
 * pure function of the path and dtypes (research vllm-flashinfer.md §1.1–1.3, attention-numerics §5.1, §6 D2).
 *
 * Kernel maths (trtllm-gen and the native wrappers alike):
 *   O = bmm2 · softmax(bmm1 · Q·Kᵀ + mask) · V, with Q, K, V as stored (FP8 decoded without scales).
 * Correct: bmm1 = sm · (q_scale if Q is FP8) · (k_scale if KV is FP8); bmm2 = v_scale if KV is FP8.
 * When the forced-trtllm prefill path first dequantizes an FP8 cache into a BF16 copy
 * (K·k_scale, V·v_scale), the scales are already in the values: bmm1 = sm, bmm2 = 1.
 */

export type FlashinferKernel = 'trtllm-gen-decode' | 'trtllm-gen-context' | 'native-decode' | 'native-prefill';

export interface ScaleContext {
  kernel: FlashinferKernel;
  qDtype: 'bf16' | 'fp8';
  kvQuantized: boolean;
  smScale: number;
  q: number;
  k: number;
  v: number;
}

export interface KernelScales {
  bmm1: number;
  bmm2: number;
  /** Dequantize the FP8 cache into BF16 (value · scale) before the kernel (vLLM's BF16-Q/FP8-KV trtllm prefill fallback). */
  dequantizeKvFirst: boolean;
}

export type ScalePolicy = (c: ScaleContext) => KernelScales;

/** The BF16-Q + FP8-KV prefill on trtllm-gen has no such kernel: vLLM dequantizes the cache first. */
function needsDequantFallback(c: ScaleContext): boolean {
  return c.kvQuantized && c.kernel === 'trtllm-gen-context' && c.qDtype !== 'fp8';
}

/** As it should be (vLLM PR #48016 / `get_xqa_bmm1_scale`; FlashInfer's own tests). */
export const fixedScales: ScalePolicy = (c) => {
  if (!c.kvQuantized) return { bmm1: c.smScale, bmm2: 1, dequantizeKvFirst: false };
  if (needsDequantFallback(c)) return { bmm1: c.smScale, bmm2: 1, dequantizeKvFirst: true };
  const q = c.qDtype === 'fp8' ? c.q : 1;
  return { bmm1: c.smScale * q * c.k, bmm2: c.v, dequantizeKvFirst: false };
};

/**
 * As shipped in the affected vLLM versions: bmm1 = sm · q_scale · k_scale and bmm2 = v_scale
 * whenever the KV cache is quantized, whatever the query dtype (cached once per layer), and the
 * dequantizing prefill fallback still passes them — k and v applied twice, q applied to a BF16 query.
 */
export const vllmAffectedScales: ScalePolicy = (c) => {
  if (!c.kvQuantized) return { bmm1: c.smScale, bmm2: 1, dequantizeKvFirst: false };
  return { bmm1: c.smScale * c.q * c.k, bmm2: c.v, dequantizeKvFirst: needsDequantFallback(c) };
};

export type BookkeepingName = 'fixed' | 'vllm-affected';

export const SCALE_POLICIES: Record<BookkeepingName, ScalePolicy> = {
  fixed: fixedScales,
  'vllm-affected': vllmAffectedScales,
};
