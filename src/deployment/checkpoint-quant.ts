/**
 * How a checkpoint quantizes its linear layers' inputs, as far as its config declares it
 * (research/configs-and-cli.md §1.5). Hazards need two facts vLLM derives from the same fields:
 *   - the quantization method (compressed-tensors vs ModelOpt vs others): compressed-tensors
 *     loads KV-cache scales through its own method (research/interaction-bugs.md B16);
 *   - whether activations after a norm are quantized *statically* to FP8 or to NVFP4, which is
 *     what vLLM's fused allreduce + RMSNorm + quant patterns match (interaction-bugs.md B9).
 * Sources, in vLLM's order: config.json `quantization_config`, then `hf_quant_config.json`.
 *   - ModelOpt `quant_algo`: FP8 (static per-tensor input scales) and NVFP4 (static global input
 *     scale) quantize activations; FP8_PER_CHANNEL_PER_TOKEN is dynamic; W4A16_NVFP4 and FP8_PB_WO
 *     are weight-only; anything else (MIXED_PRECISION …) is left unclassified.
 *   - compressed-tensors `config_groups.*.input_activations`: null = weight-only;
 *     {num_bits: 8, type: float, dynamic: false} = static FP8; dynamic true = dynamic FP8;
 *     {num_bits: 4, type: float} = NVFP4 (its block scales are computed on the fly, its global
 *     scale is stored).
 */
import type { ModelFacts } from './deployment.js';
import { isPlainObject } from './vllm-values.js';

export type CheckpointQuantization = NonNullable<ModelFacts['quantization']>;
type Activations = CheckpointQuantization['activations'];

const MODELOPT_ACTIVATIONS: Record<string, Activations> = {
  FP8: 'fp8-static',
  NVFP4: 'nvfp4',
  FP8_PER_CHANNEL_PER_TOKEN: 'fp8-dynamic',
  W4A16_NVFP4: 'weight-only',
  FP8_PB_WO: 'weight-only',
};

function ctActivations(groups: unknown): Activations {
  if (!isPlainObject(groups)) return 'unclassified';
  const kinds = Object.values(groups).map((g): Activations => {
    if (!isPlainObject(g)) return 'unclassified';
    const a = g.input_activations;
    if (a === null || a === undefined) return 'weight-only';
    if (!isPlainObject(a) || a.type !== 'float') return 'unclassified';
    if (a.num_bits === 4) return 'nvfp4';
    if (a.num_bits === 8)
      return a.dynamic === false ? 'fp8-static' : a.dynamic === true ? 'fp8-dynamic' : 'unclassified';
    return 'unclassified';
  });
  // One group that statically quantizes activations is enough for a fused pattern to match.
  for (const k of ['fp8-static', 'nvfp4', 'unclassified', 'fp8-dynamic'] as const)
    if (kinds.includes(k)) return k;
  return kinds.length ? 'weight-only' : 'unclassified';
}

export function checkpointQuantization(
  config: Record<string, unknown>,
  hfQuant: unknown,
  files: { config: string; hfQuant: string },
): CheckpointQuantization | undefined {
  const qc = config.quantization_config;
  if (isPlainObject(qc) && typeof qc.quant_method === 'string') {
    const method = qc.quant_method.toLowerCase();
    const hasKvCacheScheme = qc.kv_cache_scheme !== undefined && qc.kv_cache_scheme !== null;
    if (method === 'compressed-tensors')
      return {
        method,
        activations: ctActivations(qc.config_groups),
        hasKvCacheScheme,
        evidence: `${files.config}: quantization_config.quant_method "compressed-tensors"`,
      };
    const nested = isPlainObject(qc.quantization) ? qc.quantization : {};
    const algo = typeof qc.quant_algo === 'string' ? qc.quant_algo : nested.quant_algo;
    if (method.startsWith('modelopt')) {
      const a = typeof algo === 'string' ? MODELOPT_ACTIVATIONS[algo.toUpperCase()] : undefined;
      return {
        method: 'modelopt',
        activations: a ?? 'unclassified',
        hasKvCacheScheme,
        evidence: `${files.config}: quantization_config.quant_method "${qc.quant_method}"${typeof algo === 'string' ? `, quant_algo "${algo}"` : ''}`,
      };
    }
    return {
      method,
      activations: 'unclassified',
      hasKvCacheScheme,
      evidence: `${files.config}: quantization_config.quant_method "${qc.quant_method}"`,
    };
  }
  if (isPlainObject(hfQuant) && isPlainObject(hfQuant.quantization)) {
    const algo = hfQuant.quantization.quant_algo;
    const a = typeof algo === 'string' ? MODELOPT_ACTIVATIONS[algo.toUpperCase()] : undefined;
    return {
      method: 'modelopt',
      activations: a ?? 'unclassified',
      hasKvCacheScheme: false,
      evidence: `${files.hfQuant}: quantization.quant_algo ${JSON.stringify(algo)}`,
    };
  }
  return undefined;
}
