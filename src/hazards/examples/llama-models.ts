/**
 * GGUF files the llama.cpp and Ollama hazard examples run against, as the model facts
 * `--model-config FILE.gguf` reads from their headers (gguf/model-facts.ts): the architecture,
 * the layer pattern llama.cpp derives, the window, heads and head sizes.
 */
import type { AttentionShape, LayerKind, ModelFacts } from '../../deployment/deployment.js';
import type { ModelPreset } from './models.js';

const period = (n: number, p: number): LayerKind[] =>
  Array.from({ length: n }, (_, il): LayerKind => (il % p < p - 1 ? 'sliding' : 'full'));
const gguf = (
  file: string,
  arch: string,
  layers: LayerKind[],
  attention: AttentionShape,
  over: Partial<ModelFacts> = {},
): ModelFacts => ({
  source: file,
  format: 'gguf',
  modelType: arch,
  layers,
  attention,
  notes: [],
  ...over,
});

// prettier-ignore
export const LLAMA_PRESETS: readonly ModelPreset[] = [
  { id: 'gguf-gemma-3-27b-it', label: 'gemma-3-27b-it-Q4_K_M.gguf (gemma3; 62 layers, 5 of every 6 sliding-window with a 1024-token window; 32 query / 16 KV heads of 128)', facts: () => gguf('gemma-3-27b-it-Q4_K_M.gguf', 'gemma3', period(62, 6), { headCount: 32, headCountKv: 16, keyLength: 128, valueLength: 128, kvLayout: 'gqa' }, { window: 1024, contextLength: 131072 }) },
  { id: 'gguf-llama-3.1-8b', label: 'Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf (llama; 32 full-attention layers; 32 query / 8 KV heads of 128)', facts: () => gguf('Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf', 'llama', Array<LayerKind>(32).fill('full'), { headCount: 32, headCountKv: 8, keyLength: 128, valueLength: 128, kvLayout: 'gqa' }, { contextLength: 131072 }) },
  { id: 'gguf-phi-2', label: 'phi-2.Q8_0.gguf (phi2; 32 full-attention layers; 32 heads of 80: a K head size not a multiple of 64)', facts: () => gguf('phi-2.Q8_0.gguf', 'phi2', Array<LayerKind>(32).fill('full'), { headCount: 32, headCountKv: 32, keyLength: 80, valueLength: 80, kvLayout: 'mha' }, { contextLength: 2048 }) },
  { id: 'gguf-deepseek-v4-flash', label: 'a DeepSeek-V4-Flash GGUF (deepseek4; every layer sliding-window with llama.cpp’s sparse attention paths)', facts: () => gguf('DeepSeek-V4-Flash-Q4_K_M.gguf', 'deepseek4', Array<LayerKind>(43).fill('sliding'), { headCount: 64, headCountKv: 1, keyLength: 512, valueLength: 512, kvLayout: 'mla' }, { window: 128 }) },
  { id: 'gguf-gpt-oss-20b', label: 'gpt-oss-20b-mxfp4.gguf (gpt-oss; 24 layers alternating sliding (128 tokens) and full; 64 query / 8 KV heads of 64)', facts: () => gguf('gpt-oss-20b-mxfp4.gguf', 'gpt-oss', period(24, 2), { headCount: 64, headCountKv: 8, keyLength: 64, valueLength: 64, kvLayout: 'gqa' }, { window: 128, contextLength: 131072 }) },
];
