/**
 * Checkpoints the SGLang hazard examples run against, as model facts. SGLang keys its per-model
 * choices on config.json `architectures`, so these presets carry them.
 */
import type { LayerKind, ModelFacts } from '../../deployment/deployment.js';
import type { ModelPreset } from './models.js';

const full = (n: number): LayerKind[] => Array<LayerKind>(n).fill('full');
const facts = (
  modelType: string,
  architectures: string[],
  layers: LayerKind[],
  over: Partial<ModelFacts> = {},
): ModelFacts => ({
  source: 'config.json',
  modelType,
  architectures,
  layers,
  notes: [],
  ...over,
});

// prettier-ignore
export const SGLANG_PRESETS: readonly ModelPreset[] = [
  { id: 'sgl-gemma-3-27b-it', label: 'google/gemma-3-27b-it (Gemma3ForConditionalGeneration; 62 layers, 5 of every 6 sliding-window with a 1024-token window)', facts: () => facts('gemma3', ['Gemma3ForConditionalGeneration'], Array.from({ length: 62 }, (_, i): LayerKind => ((i + 1) % 6 === 0 ? 'full' : 'sliding')), { window: 1024 }) },
  { id: 'sgl-gemma-3-1b-it', label: 'google/gemma-3-1b-it (Gemma3ForCausalLM, text only; 26 layers, 5 of every 6 sliding-window with a 512-token window)', facts: () => facts('gemma3_text', ['Gemma3ForCausalLM'], Array.from({ length: 26 }, (_, i): LayerKind => ((i + 1) % 6 === 0 ? 'full' : 'sliding')), { window: 512 }) },
  { id: 'sgl-llama-3.1-8b', label: 'meta-llama/Llama-3.1-8B-Instruct (LlamaForCausalLM, 32 full-attention layers)', facts: () => facts('llama', ['LlamaForCausalLM'], full(32)) },
  { id: 'sgl-llama-3.1-70b-fp8', label: 'an FP8 Llama-3.1-70B-Instruct export with per-layer k/v scales (LlamaForCausalLM, 80 layers)', facts: () => facts('llama', ['LlamaForCausalLM'], full(80), { scales: { present: { q: false, k: true, v: true } } }) },
  { id: 'sgl-deepseek-v3', label: 'deepseek-ai/DeepSeek-V3-0324 (DeepseekV3ForCausalLM, MLA, 61 layers, FP8 weights with per-layer k_scale/v_scale)', facts: () => facts('deepseek_v3', ['DeepseekV3ForCausalLM'], full(61), { scales: { present: { q: false, k: true, v: true } } }) },
  { id: 'sgl-deepseek-r1-fp4', label: 'nvidia/DeepSeek-R1-0528-FP4 (DeepseekV3ForCausalLM, MLA, ModelOpt NVFP4)', facts: () => facts('deepseek_v3', ['DeepseekV3ForCausalLM'], full(61), { quantization: { method: 'modelopt', activations: 'nvfp4', hasKvCacheScheme: false, evidence: 'hf_quant_config.json: quant_algo "NVFP4"' } }) },
  { id: 'sgl-gpt-oss-120b', label: 'openai/gpt-oss-120b (GptOssForCausalLM, MoE, attention sinks; 36 layers alternating sliding-window (128) and full)', facts: () => facts('gpt_oss', ['GptOssForCausalLM'], Array.from({ length: 36 }, (_, i): LayerKind => (i % 2 ? 'full' : 'sliding')), { window: 128 }) },
  { id: 'sgl-qwen3-30b-a3b', label: 'Qwen/Qwen3-30B-A3B (Qwen3MoeForCausalLM, MoE, 48 full-attention layers)', facts: () => facts('qwen3_moe', ['Qwen3MoeForCausalLM'], full(48)) },
  { id: 'sgl-qwen3.5-35b-a3b', label: 'Qwen/Qwen3.5-35B-A3B (Qwen3_5MoeForConditionalGeneration; hybrid: 30 GDN + 10 attention layers)', facts: () => facts('qwen3_5_moe', ['Qwen3_5MoeForConditionalGeneration'], Array.from({ length: 40 }, (_, i): LayerKind => ((i + 1) % 4 === 0 ? 'full' : 'linear'))) },
  { id: 'sgl-deepseek-v4-pro-nvfp4', label: 'an NVFP4 export of DeepSeek-V4-Pro (DeepseekV4ForCausalLM, model_type deepseek_v4, ModelOpt NVFP4; the layer layout is not modelled)', facts: () => facts('deepseek_v4', ['DeepseekV4ForCausalLM'], [], { quantization: { method: 'modelopt', activations: 'nvfp4', hasKvCacheScheme: false, evidence: 'hf_quant_config.json: quant_algo "NVFP4"' } }) },
  { id: 'sgl-glm-5.1-fp8', label: 'zai-org/GLM-5.1-FP8 (GlmMoeDsaForCausalLM: MLA with DeepSeek sparse attention)', facts: () => facts('glm_moe_dsa', ['GlmMoeDsaForCausalLM'], full(78)) },
];
