/**
 * The checkpoints hazard examples run against, as the model facts `--model-config` would read from
 * them (layer types, window, quantization, scales). Each preset stands for a public checkpoint the
 * record names, reduced to the facts lint's conditions read; the label says which checkpoint and what
 * matters about it. Presets are data: the docs pages show the label, the table tests use the facts.
 */
import type { LayerKind, ModelFacts } from '../../deployment/deployment.js';
import { LLAMA_PRESETS } from './llama-models.js';
import { SGLANG_PRESETS } from './sglang-models.js';

export interface ModelPreset {
  id: string;
  /** The checkpoint and the facts that matter, in words (shown in docs and `--suggest`). */
  label: string;
  /** What `--model-config` would give for it. */
  facts: () => ModelFacts;
}

/** `total` layers; every `every`-th one (1-based) is `kind`, the rest `rest`. */
function pattern(total: number, every: number, kind: LayerKind, rest: LayerKind): LayerKind[] {
  return Array.from({ length: total }, (_, i) => ((i + 1) % every === 0 ? kind : rest));
}

const nvfp4Modelopt = (kv: boolean) => ({
  method: 'modelopt',
  activations: 'nvfp4' as const,
  hasKvCacheScheme: false,
  evidence: `hf_quant_config.json: quant_algo "NVFP4"${kv ? ', kv_cache_quant_algo "FP8"' : ''}`,
});

const gemma4 = (over: Partial<ModelFacts> = {}): ModelFacts => ({
  source: 'config.json',
  modelType: 'gemma4_text',
  multimodal: true,
  layers: pattern(60, 6, 'full', 'sliding'),
  window: 1024,
  notes: [],
  ...over,
});

const gemma4Nvfp4 = (over: Partial<ModelFacts> = {}): ModelFacts =>
  gemma4({
    kvDtypeFromCheckpoint: 'fp8_e4m3',
    kvDtypeEvidence: 'hf_quant_config.json: kv_cache_quant_algo "FP8"',
    quantization: nvfp4Modelopt(true),
    ...over,
  });

const layerScales = (n: number, q: number | undefined, k: number, v: number): ModelFacts['scales'] => ({
  present: { q: q !== undefined, k: true, v: true },
  ...(q !== undefined ? { q: Array<number>(n).fill(q) } : {}),
  k: Array<number>(n).fill(k),
  v: Array<number>(n).fill(v),
});

const llama = (over: Partial<ModelFacts> = {}): ModelFacts => ({
  source: 'config.json',
  modelType: 'llama',
  multimodal: false,
  layers: Array<LayerKind>(32).fill('full'),
  notes: [],
  ...over,
});

const qwenHybrid = (modelType: string, total: number, over: Partial<ModelFacts> = {}): ModelFacts => ({
  source: 'config.json',
  modelType,
  layers: pattern(total, 4, 'full', 'linear'),
  notes: [],
  ...over,
});

// prettier-ignore
const PRESETS: readonly ModelPreset[] = [
  { id: 'gemma-4-31b-it-nvfp4', label: 'nvidia/Gemma-4-31B-IT-NVFP4 (60 layers, 50 sliding-window with a 1024-token window; the checkpoint declares an FP8 KV cache)', facts: () => gemma4Nvfp4() },
  { id: 'gemma-4-31b-it-nvfp4-calibrated', label: 'a Gemma-4-31B NVFP4 export with calibrated attention scales (q_scale 0.0277, k_scale 0.05, v_scale 0.04 in every layer; FP8 KV declared)', facts: () => gemma4Nvfp4({ scales: layerScales(60, 0.0277, 0.05, 0.04) }) },
  { id: 'gemma-4-31b-it-nvfp4-unit-scales', label: 'a Gemma-4-31B NVFP4 export whose stored q/k/v scales are all 1.0', facts: () => gemma4Nvfp4({ scales: layerScales(60, 1, 1, 1) }) },
  { id: 'gemma-4-31b-it', label: 'google/gemma-4-31B-it in BF16 (60 layers, 50 sliding-window with a 1024-token window; no quantized KV cache declared)', facts: () => gemma4() },
  { id: 'gemma-3-27b-it', label: 'google/gemma-3-27b-it (62 layers, 5 of every 6 sliding-window with a 1024-token window)', facts: () => ({ ...gemma4(), modelType: 'gemma3_text', layers: pattern(62, 6, 'full', 'sliding') }) },
  { id: 'llama-3.1-8b-instruct', label: 'meta-llama/Llama-3.1-8B-Instruct (32 full-attention layers, BF16)', facts: () => llama() },
  { id: 'llama-3.1-8b-ct-fp8-kv', label: 'an llm-compressor FP8 export of Llama-3.1-8B with an FP8 kv_cache_scheme and calibrated k/v scales (0.0213 / 0.0087)', facts: () => llama({
    kvDtypeFromCheckpoint: 'fp8_e4m3',
    kvDtypeEvidence: 'config.json: quantization_config.kv_cache_scheme {num_bits 8, type float} (compressed-tensors)',
    quantization: { method: 'compressed-tensors', activations: 'fp8-static', hasKvCacheScheme: true, evidence: 'config.json: quantization_config.quant_method "compressed-tensors"' },
    scales: layerScales(32, undefined, 0.0213, 0.0087),
  }) },
  { id: 'llama-3.1-8b-ct-fp8', label: 'an llm-compressor FP8 export of Llama-3.1-8B without a kv_cache_scheme (BF16 KV cache)', facts: () => llama({
    quantization: { method: 'compressed-tensors', activations: 'fp8-static', hasKvCacheScheme: false, evidence: 'config.json: quantization_config.quant_method "compressed-tensors"' },
  }) },
  { id: 'qwen3.6-27b-nvfp4', label: 'nvidia/Qwen3.6-27B-NVFP4 (Qwen3.5-family hybrid: 48 GDN + 16 attention layers, Gemma-style RMSNorm, ModelOpt NVFP4)', facts: () => qwenHybrid('qwen3_5', 64, { quantization: nvfp4Modelopt(false) }) },
  { id: 'qwen3.6-27b', label: 'Qwen/Qwen3.6-27B in BF16 (Qwen3.5-family hybrid: 48 GDN + 16 attention layers, Gemma-style RMSNorm, unquantized)', facts: () => qwenHybrid('qwen3_5', 64) },
  { id: 'qwen3.5-35b-a3b', label: 'Qwen/Qwen3.5-35B-A3B (hybrid: 24 GDN + 8 attention layers)', facts: () => qwenHybrid('qwen3_5_moe', 32) },
  { id: 'qwen3-next-80b-a3b', label: 'Qwen/Qwen3-Next-80B-A3B-Instruct (hybrid: 36 GDN + 12 attention layers)', facts: () => qwenHybrid('qwen3_next', 48) },
  { id: 'deepseek-r1', label: 'deepseek-ai/DeepSeek-R1 (MLA, 61 layers)', facts: () => ({ source: 'config.json', modelType: 'deepseek_v3', layers: Array<LayerKind>(61).fill('full'), notes: [] }) },
  { id: 'gpt-oss-20b', label: 'openai/gpt-oss-20b (attention sinks; 24 layers alternating sliding-window (128 tokens) and full)', facts: () => ({ source: 'config.json', modelType: 'gpt_oss', layers: Array.from({ length: 24 }, (_, i): LayerKind => (i % 2 ? 'full' : 'sliding')), window: 128, notes: [] }) },
  { id: 'gemma-4-12b-it', label: 'google/gemma-4-12B-it (48 layers: 40 sliding-window with a 1024-token window, 8 full)', facts: () => gemma4({ layers: pattern(48, 6, 'full', 'sliding') }) },
  { id: 'qwen2.5-vl-7b-instruct', label: 'Qwen/Qwen2.5-VL-7B-Instruct (Qwen2.5-VL, 28 full-attention layers, BF16, no KV scales)', facts: () => ({ source: 'config.json', modelType: 'qwen2_5_vl_text', multimodal: true, layers: Array<LayerKind>(28).fill('full'), scales: { present: { q: false, k: false, v: false } }, notes: [] }) },
  { id: 'ministral-3-3b-calibrated', label: 'mistralai/Ministral-3-3B-Instruct-2512 with its calibrated attention scales (q_scale 0.0277 in layer 0, as vllm PR #53754 measured; other layers and the layer layout not modelled)', facts: () => ({ source: 'config.json', layers: [], scales: { present: { q: true, k: false, v: false }, q: [0.0277] }, notes: [] }) },
  { id: 'kimi-k3', label: 'Kimi-K3 (model_type kimi_k3, as vLLM’s kimi_k3_mtp drafter type names it; the layer layout is not modelled)', facts: () => ({ source: 'config.json', modelType: 'kimi_k3', layers: [], notes: [] }) },
  { id: 'glm-5.3-nvfp4', label: 'GLM-5.3 NVFP4 (GlmMoeDsaForCausalLM: sparse MLA, model_type glm_moe_dsa; the layer layout is not modelled)', facts: () => ({ source: 'config.json', modelType: 'glm_moe_dsa', layers: [], notes: [] }) },
  { id: 'glm-5.1-nvfp4', label: 'GLM-5.1 NVFP4 (GlmMoeDsaForCausalLM: sparse MLA, model_type glm_moe_dsa; the layer layout is not modelled)', facts: () => ({ source: 'config.json', modelType: 'glm_moe_dsa', layers: [], notes: [] }) },
  { id: 'deepseek-v4-flash', label: 'deepseek-ai/DeepSeek-V4-Flash (DeepseekV4ForCausalLM, model_type deepseek_v4, 43 layers)', facts: () => ({ source: 'config.json', modelType: 'deepseek_v4', layers: Array<LayerKind>(43).fill('full'), notes: [] }) },
];

const byId = new Map([...PRESETS, ...SGLANG_PRESETS, ...LLAMA_PRESETS].map((p) => [p.id, p]));

export function modelPreset(id: string): ModelPreset | undefined {
  return byId.get(id);
}

export function modelPresetIds(): string[] {
  return [...byId.keys()];
}
