/**
 * The KV-cache dtype a checkpoint declares for itself, which vLLM follows under
 * `--kv-cache-dtype auto` (research/configs-and-cli.md §1.5, vllm-flashinfer.md §4):
 *   - ModelOpt: `hf_quant_config.json` → `quantization.kv_cache_quant_algo`, or config.json's
 *     `quantization_config` with `quant_method` starting with "modelopt" → `kv_cache_scheme`
 *     (`{num_bits: 8, type: float}` or a string) / `kv_cache_quant_algo`; mapped FP8 → fp8_e4m3,
 *     NVFP4 → nvfp4 (vLLM's MODELOPT_TO_VLLM_KV_CACHE_DTYPE_MAP);
 *   - compressed-tensors (llm-compressor): a non-null `kv_cache_scheme` makes vLLM's Attention
 *     layer switch the cache to "fp8" (= fp8_e4m3).
 */
import type { ModelFacts } from './deployment.js';
import { isPlainObject } from './vllm-values.js';

type KvDtype = NonNullable<ModelFacts['kvDtypeFromCheckpoint']>;

export interface CheckpointKvDtype {
  dtype?: KvDtype;
  evidence?: string;
  notes: string[];
}

const MODELOPT_ALGO: Record<string, KvDtype> = { FP8: 'fp8_e4m3', NVFP4: 'nvfp4' };

function fromScheme(scheme: unknown): KvDtype | undefined {
  if (typeof scheme === 'string') return MODELOPT_ALGO[scheme.toUpperCase()];
  if (isPlainObject(scheme) && scheme.num_bits === 8 && scheme.type === 'float') return 'fp8_e4m3';
  return undefined;
}

/**
 * @param config the parsed config.json
 * @param hfQuant the parsed hf_quant_config.json beside it, if any
 * @param files names for the evidence text
 */
export function checkpointKvDtype(
  config: Record<string, unknown>,
  hfQuant: unknown,
  files: { config: string; hfQuant: string },
): CheckpointKvDtype {
  const notes: string[] = [];
  const found: { dtype: KvDtype; evidence: string }[] = [];
  const unknown = (where: string, value: unknown) =>
    notes.push(
      `${where} ${JSON.stringify(value)} is not a KV-cache format faultline knows; vLLM then keeps "auto" with a warning`,
    );

  // vLLM reads config.json's quantization_config first and falls back to hf_quant_config.json.
  const qc = config.quantization_config;
  if (isPlainObject(qc)) {
    const method = typeof qc.quant_method === 'string' ? qc.quant_method.toLowerCase() : '';
    const nested = isPlainObject(qc.quantization) ? qc.quantization : {};
    if (method.startsWith('modelopt')) {
      for (const [key, value] of [
        ['quantization.kv_cache_scheme', nested.kv_cache_scheme],
        ['kv_cache_scheme', qc.kv_cache_scheme],
        ['quantization.kv_cache_quant_algo', nested.kv_cache_quant_algo],
        ['kv_cache_quant_algo', qc.kv_cache_quant_algo],
      ] as const) {
        if (value === undefined || value === null) continue;
        const dtype = fromScheme(value);
        if (dtype)
          found.push({
            dtype,
            evidence: `${files.config}: quantization_config.${key} ${JSON.stringify(value)} (quant_method ${qc.quant_method as string})`,
          });
        else unknown(`${files.config}: quantization_config.${key}`, value);
      }
    } else if (method === 'compressed-tensors') {
      const scheme = qc.kv_cache_scheme;
      if (scheme !== undefined && scheme !== null) {
        const dtype = fromScheme(scheme);
        if (dtype)
          found.push({
            dtype,
            evidence: `${files.config}: quantization_config.kv_cache_scheme ${JSON.stringify(scheme)} (compressed-tensors)`,
          });
        else unknown(`${files.config}: compressed-tensors kv_cache_scheme`, scheme);
      }
    } else if (qc.kv_cache_scheme !== undefined && qc.kv_cache_scheme !== null) {
      notes.push(
        `${files.config}: kv_cache_scheme under quant_method "${String(qc.quant_method)}" — whether vLLM follows it is not established`,
      );
    }
  }

  if (isPlainObject(hfQuant) && isPlainObject(hfQuant.quantization)) {
    const algo = hfQuant.quantization.kv_cache_quant_algo;
    if (typeof algo === 'string') {
      const dtype = MODELOPT_ALGO[algo.toUpperCase()];
      if (dtype)
        found.push({ dtype, evidence: `${files.hfQuant}: quantization.kv_cache_quant_algo "${algo}"` });
      else unknown(`${files.hfQuant}: kv_cache_quant_algo`, algo);
    }
  }

  if (found.length === 0) return { notes };
  const distinct = new Set(found.map((f) => f.dtype));
  if (distinct.size > 1)
    notes.push(
      `the checkpoint declares different KV-cache formats: ${found.map((f) => f.evidence).join('; ')}`,
    );
  return { dtype: found[0].dtype, evidence: found.map((f) => f.evidence).join('; '), notes };
}
