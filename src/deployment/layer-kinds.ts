/**
 * Per-layer attention kinds and the sliding window of a Hugging Face config, derived the way
 * transformers (which vLLM loads configs through) and vLLM's model files derive them
 * (research/configs-and-cli.md §1.2–§1.4):
 *
 * - an explicit `layer_types` list wins (`sliding_attention` / `hybrid_sliding` → sliding,
 *   `chunked_attention` → chunked, `linear_attention` / `mamba` / `conv` → linear, others → full);
 * - otherwise the family's default pattern: Gemma 2 even layers; Gemma 3 `(i+1) % pattern`
 *   (default 6); Gemma 4 the same plus the last layer forced full; Cohere2 pattern 4; GPT-OSS even
 *   layers (vLLM hard-codes this even when layer_types says otherwise); Qwen2/3 only with
 *   `use_sliding_window: true`, layers ≥ `max_window_layers`; MiMo-V2 `hybrid_layer_pattern`;
 *   Mistral every layer, where a MISSING `sliding_window` means 4096 and an explicit null means none;
 *   Llama 4 chunked local attention (not a sliding window) on the RoPE layers;
 *   any other family: every layer when `sliding_window` is a number.
 * The decoder's fields are read from `text_config` (or `thinker_config.text_config`) when present.
 */
import { UserError, type SourceLocation } from '../core/errors.js';
import type { LayerKind } from './deployment.js';
import { isPlainObject } from './vllm-values.js';

export interface LayerFacts {
  modelType?: string;
  layers: LayerKind[];
  window?: number;
  chunkSize?: number;
  notes: string[];
}

type Config = Record<string, unknown>;

/** The decoder's config: `text_config`, `thinker_config.text_config`, or the config itself. */
export function textConfigOf(config: Config): Config {
  if (isPlainObject(config.text_config)) return config.text_config;
  const thinker = config.thinker_config;
  if (isPlainObject(thinker) && isPlainObject(thinker.text_config)) return thinker.text_config;
  return config;
}

/** transformers' default windows for the families that have one (used when a config omits the field). */
const DEFAULT_WINDOW: Record<string, number> = {
  gemma2: 4096,
  gemma3_text: 4096,
  gemma3: 4096,
  gemma4_text: 512,
  gemma4: 512,
  cohere2: 4096,
  gpt_oss: 128,
  qwen2: 4096,
  qwen2_moe: 4096,
  qwen3: 4096,
  qwen3_moe: 4096,
  mistral: 4096,
};

const QWEN_FAMILY = new Set(['qwen2', 'qwen2_moe', 'qwen3', 'qwen3_moe', 'qwen2_5_vl_text', 'qwen3_next']);

export function layerFactsOf(config: Config, at: SourceLocation): LayerFacts {
  const tc = textConfigOf(config);
  const modelType =
    typeof tc.model_type === 'string'
      ? tc.model_type
      : typeof config.model_type === 'string'
        ? config.model_type
        : undefined;
  const notes: string[] = [];
  const n = tc.num_hidden_layers;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) {
    throw new UserError(
      `${at.file}: num_hidden_layers is missing or not a whole number${tc !== config ? ' (looked in text_config)' : ''}`,
      {
        code: 'E_MODEL_CONFIG',
        at,
        hint: "point --model-config at the model's own config.json (Hugging Face format)",
      },
    );
  }
  const num = (v: unknown): number | undefined =>
    typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined;
  const windowField = (): number | undefined =>
    num(tc.sliding_window) ?? num(tc.interleaved_sliding_window) ?? num(tc.sliding_window_size);
  const windowOrDefault = (): number | undefined => {
    const w = windowField();
    if (w !== undefined) return w;
    const d = modelType ? DEFAULT_WINDOW[modelType] : undefined;
    if (d !== undefined)
      notes.push(`no sliding_window in the config: ${modelType}'s default of ${d} tokens applies`);
    return d;
  };
  const pattern = (every: number, forceLastFull = false): LayerKind[] =>
    Array.from({ length: n }, (_, i) =>
      (i + 1) % every !== 0 && !(forceLastFull && i === n - 1) ? 'sliding' : 'full',
    );

  let layers: LayerKind[];
  let window: number | undefined;
  let chunkSize: number | undefined;

  if (Array.isArray(tc.layer_types)) {
    if (tc.layer_types.length !== n) {
      throw new UserError(
        `${at.file}: layer_types has ${tc.layer_types.length} entries but num_hidden_layers is ${n}`,
        {
          code: 'E_MODEL_CONFIG',
          at,
          hint: 'transformers rejects such a config too; check that the file is complete',
        },
      );
    }
    layers = tc.layer_types.map((t) => kindOfLayerType(t, notes));
    if (modelType === 'gpt_oss') {
      const parity = pattern(2).map((_, i): LayerKind => (i % 2 === 0 ? 'sliding' : 'full'));
      if (parity.some((k, i) => k !== layers[i])) {
        notes.push(
          'gpt_oss: vLLM applies the window to even layers whatever layer_types says; using its rule',
        );
        layers = parity;
      }
    }
    if (layers.includes('chunked')) chunkSize = num(tc.attention_chunk_size);
    if (layers.includes('sliding')) window = windowOrDefault();
  } else if (modelType === 'gemma2') {
    layers = Array.from({ length: n }, (_, i) => (i % 2 === 0 ? 'sliding' : 'full'));
    window = windowOrDefault();
  } else if (modelType === 'gemma3_text' || modelType === 'gemma3') {
    layers = pattern(num(tc.sliding_window_pattern) ?? 6);
    window = windowOrDefault();
  } else if (modelType === 'gemma4_text' || modelType === 'gemma4') {
    layers = pattern(6, true);
    window = windowOrDefault();
  } else if (modelType === 'cohere2') {
    layers = pattern(num(tc.sliding_window_pattern) ?? 4);
    window = windowOrDefault();
  } else if (modelType === 'gpt_oss') {
    layers = Array.from({ length: n }, (_, i) => (i % 2 === 0 ? 'sliding' : 'full'));
    window = windowOrDefault();
  } else if (modelType !== undefined && QWEN_FAMILY.has(modelType)) {
    if (tc.use_sliding_window === true) {
      const from = typeof tc.max_window_layers === 'number' ? tc.max_window_layers : 28;
      layers = Array.from({ length: n }, (_, i) => (i >= from ? 'sliding' : 'full'));
      window = layers.includes('sliding') ? windowOrDefault() : undefined;
    } else {
      layers = Array(n).fill('full');
      if (windowField() !== undefined)
        notes.push(
          `${modelType}: use_sliding_window is not true, so sliding_window ${String(tc.sliding_window)} has no effect`,
        );
    }
  } else if (modelType === 'mimo_v2' || modelType === 'mimo_v2_flash') {
    const hp = Array.isArray(tc.hybrid_layer_pattern) ? tc.hybrid_layer_pattern : [];
    layers = Array.from({ length: n }, (_, i) => (hp[i] === 1 ? 'sliding' : 'full'));
    if (hp.length !== n)
      notes.push(
        `${modelType}: hybrid_layer_pattern has ${hp.length} entries for ${n} layers; missing entries read as full attention`,
      );
    window = layers.includes('sliding') ? windowField() : undefined;
  } else if (modelType === 'llama4_text' || modelType === 'llama4') {
    chunkSize = num(tc.attention_chunk_size);
    const interval = num(tc.no_rope_layer_interval) ?? 4;
    const noRope = Array.isArray(tc.no_rope_layers)
      ? tc.no_rope_layers
      : Array.from({ length: n }, (_, i) => ((i + 1) % interval !== 0 ? 1 : 0));
    // vLLM: chunked local attention on layers that use RoPE (no_rope_layers[i] == 1) when a chunk size is set.
    layers = Array.from({ length: n }, (_, i) =>
      chunkSize !== undefined && noRope[i] === 1 ? 'chunked' : 'full',
    );
    if (chunkSize !== undefined)
      notes.push(`llama4: chunked local attention (chunk ${chunkSize}) is not a sliding window`);
  } else if (modelType === 'mistral' && !Object.hasOwn(tc, 'sliding_window')) {
    layers = Array(n).fill('sliding');
    window = 4096;
    notes.push(
      'mistral: the config has no sliding_window field, which transformers reads as 4096 (an explicit null would mean none)',
    );
  } else if (tc.use_sliding_window === false) {
    layers = Array(n).fill('full');
  } else {
    window = windowField();
    layers = Array(n).fill(window !== undefined ? 'sliding' : 'full');
    if (window !== undefined && modelType === 'phi3')
      notes.push('phi3: how vLLM applies sliding_window per layer is not established; read as every layer');
  }
  const max = num(tc.max_position_embeddings);
  if (window !== undefined && max !== undefined && window >= max) {
    notes.push(
      `the sliding window (${window}) is not smaller than max_position_embeddings (${max}), so no sequence can exceed it`,
    );
  }
  // Gemma 3 (true) and Gemma 4 ("all") embedding variants halve the window; Gemma 4's "vision" does not.
  if (
    window !== undefined &&
    (tc.use_bidirectional_attention === true || tc.use_bidirectional_attention === 'all')
  ) {
    window = Math.floor(window / 2) + 1;
    notes.push(`use_bidirectional_attention halves the window (transformers): ${window} tokens`);
  }
  return {
    ...(modelType ? { modelType } : {}),
    layers,
    ...(window !== undefined ? { window } : {}),
    ...(chunkSize !== undefined ? { chunkSize } : {}),
    notes,
  };
}

function kindOfLayerType(t: unknown, notes: string[]): LayerKind {
  switch (t) {
    case 'sliding_attention':
    case 'hybrid_sliding':
      return 'sliding';
    case 'chunked_attention':
      return 'chunked';
    case 'linear_attention':
    case 'mamba':
    case 'conv':
      return 'linear';
    case 'full_attention':
    case 'attention':
      return 'full';
    default:
      if (!notes.some((x) => x.includes(JSON.stringify(t))))
        notes.push(`layer type ${JSON.stringify(t)} is read as full attention`);
      return 'full';
  }
}
