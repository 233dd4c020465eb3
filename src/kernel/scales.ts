/**
 * The bmm1/bmm2 audit: for a query dtype, KV dtype, q/k/v scales and serving path, what the
 * attention kernel must be passed, what a scale policy passes (engine/attention/bookkeeping.ts),
 * and what that does to the logits and the output of real values.
 *
 * The kernel computes O = bmm2 · softmax(bmm1 · Q_s·K_sᵀ) · V_s on stored values (attention-numerics
 * §5.1): Q_s = Q / q_scale for an FP8 query, else Q; K_s = K / k_scale and V_s = V / v_scale for an
 * FP8 cache read as is, else K, V (also when the path dequantized the cache first). So the logits
 * scale on real values is bmm1 / (q_div · k_div) and the output gain bmm2 / v_div; both must equal
 * sm_scale and 1. XQA decode computes bmm1 with vLLM's get_xqa_bmm1_scale, which includes q_scale only
 * for an FP8 query in every version that has the path (vllm-flashinfer.md §1.2), so it is correct
 * under both policies.
 */
import { UserError } from '../core/errors.js';
import { SCALE_POLICIES, fixedScales, type BookkeepingName, type FlashinferKernel, type KernelScales } from '../engine/attention/bookkeeping.js';

export type ScalePath = 'trtllm-decode' | 'trtllm-prefill' | 'xqa' | 'native';
export const SCALE_PATHS: ScalePath[] = ['trtllm-decode', 'trtllm-prefill', 'xqa', 'native'];

export interface ScaleAuditInput {
  qDtype: 'bf16' | 'fp8';
  kvDtype: 'bf16' | 'fp8_e4m3';
  qScale: number;
  kScale: number;
  vScale: number;
  smScale: number;
  path: ScalePath;
  policy: BookkeepingName;
}

export interface ScaleAuditResult {
  input: ScaleAuditInput;
  kernel: string;
  expected: KernelScales;
  passed: KernelScales;
  /** Logits scale and output gain on real values with what is passed. */
  effectiveLogitsScale: number;
  effectiveOutputGain: number;
  /** passed-effect / correct-effect: 1.0 when right. */
  logitsFactor: number;
  outputFactor: number;
  correct: boolean;
  /** The factors in terms of the scales (e.g. "q_scale", "q_scale·k_scale"), when they match one. */
  logitsFactorIs: string;
  outputFactorIs: string;
  notes: string[];
}

const KERNEL_OF: Record<ScalePath, FlashinferKernel> = {
  'trtllm-decode': 'trtllm-gen-decode',
  'trtllm-prefill': 'trtllm-gen-context',
  xqa: 'trtllm-gen-decode',
  native: 'native-decode',
};

/** Relative slack for "equal": the products are formed in different orders (float64). */
const REL = 1e-12;
const same = (a: number, b: number) => Math.abs(a - b) <= REL * Math.max(Math.abs(a), Math.abs(b));

function name(x: number, s: ScaleAuditInput): string {
  const cands: [string, number][] = [
    ['1', 1],
    ['q_scale', s.qScale],
    ['k_scale', s.kScale],
    ['v_scale', s.vScale],
    ['q_scale·k_scale', s.qScale * s.kScale],
    ['k_scale²', s.kScale * s.kScale],
    ['v_scale²', s.vScale * s.vScale],
    ['q_scale·k_scale²', s.qScale * s.kScale * s.kScale],
  ];
  return cands.find(([, v]) => same(v, x))?.[0] ?? '';
}

export function auditScales(s: ScaleAuditInput): ScaleAuditResult {
  for (const [k, v] of [['--q-scale', s.qScale], ['--k-scale', s.kScale], ['--v-scale', s.vScale], ['--sm-scale', s.smScale]] as const)
    if (!(Number.isFinite(v) && v > 0)) throw new UserError(`${k} must be a finite number > 0, got ${v}`, { code: 'E_USAGE' });
  const kvQuantized = s.kvDtype === 'fp8_e4m3';
  if (s.qDtype === 'fp8' && !kvQuantized)
    throw new UserError('an FP8 query with a BF16 KV cache is not a serving path (vLLM quantizes Q only for an FP8 cache)', {
      code: 'E_USAGE',
      hint: 'use --kv-dtype fp8_e4m3 with --q-dtype fp8',
    });
  const ctx = { kernel: KERNEL_OF[s.path], qDtype: s.qDtype, kvQuantized, smScale: s.smScale, q: s.qScale, k: s.kScale, v: s.vScale };
  const expected = fixedScales(ctx);
  const passed = s.path === 'xqa' ? fixedScales(ctx) : SCALE_POLICIES[s.policy](ctx);
  const qDiv = s.qDtype === 'fp8' ? s.qScale : 1;
  const effect = (k: KernelScales) => {
    const raw = kvQuantized && !k.dequantizeKvFirst;
    return { logits: k.bmm1 / (qDiv * (raw ? s.kScale : 1)), gain: k.bmm2 / (raw ? s.vScale : 1) };
  };
  const want = effect(expected), got = effect(passed);
  const logitsFactor = got.logits / want.logits, outputFactor = got.gain / want.gain;
  const notes: string[] = [];
  if (s.path === 'xqa') notes.push("XQA decode uses get_xqa_bmm1_scale: q_scale only for an FP8 query (correct under both policies)");
  if (passed.dequantizeKvFirst) notes.push('this path dequantizes the FP8 cache into BF16 (value · k/v scale) before the kernel, so k/v scales are already in the values');
  if (passed.dequantizeKvFirst && kvQuantized && !(same(passed.bmm1, expected.bmm1) && same(passed.bmm2, expected.bmm2)))
    notes.push('k_scale and v_scale are applied twice: once in the dequantized values and again in bmm1 / bmm2');
  if (s.qDtype === 'bf16' && s.qScale !== 1) notes.push('the query is BF16 (never divided by q_scale): q_scale must not appear in bmm1');
  if (s.qScale === 1 && s.kScale === 1 && s.vScale === 1) notes.push('all scales are 1.0: a scale-bookkeeping defect cannot show (calibrated scales reveal it)');
  return {
    input: s,
    kernel: s.path === 'xqa' ? 'xqa-decode' : KERNEL_OF[s.path],
    expected,
    passed,
    effectiveLogitsScale: got.logits,
    effectiveOutputGain: got.gain,
    logitsFactor,
    outputFactor,
    correct: same(logitsFactor, 1) && same(outputFactor, 1),
    logitsFactorIs: name(logitsFactor, s),
    outputFactorIs: name(outputFactor, s),
    notes,
  };
}
