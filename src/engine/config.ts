/**
 * The model's hyper-parameters, read from an HF-style config.json (docs/model-format.md).
 * Every field the engine needs is validated here, so a broken config is one clear UserError
 * naming the file and the field, never a NaN three layers deep.
 */
import { UserError } from '../core/errors.js';

export type LayerType = 'sliding' | 'full';

export interface ModelConfig {
  vocabSize: number; // V = 258 for the byte-level models
  hiddenSize: number; // d
  intermediateSize: number; // I (GeGLU inner width)
  numLayers: number; // L
  numHeads: number; // Hq
  numKvHeads: number; // Hkv (GQA: Hq % Hkv == 0)
  headDim: number; // hd (even: RoPE rotates pairs (i, i + hd/2))
  layerTypes: LayerType[]; // [L]
  slidingWindow: number | null; // tokens a sliding layer sees, incl. the query itself; null = no sliding layers
  ropeTheta: number; // RoPE base on full layers
  ropeLocalTheta: number; // RoPE base on sliding layers
  queryPreAttnScalar: number; // sm_scale = queryPreAttnScalar^-0.5
  rmsNormEps: number;
  finalLogitSoftcap: number | null;
  maxPositions: number;
  bosTokenId: number;
  eosTokenId: number;
  /** Number of MTP heads the checkpoint carries (0 = none). */
  numMtpLayers: number;
  /** The checkpoint declares a static per-tensor FP8 KV cache (quantization_config.kv_cache_scheme). */
  declaresFp8KvCache: boolean;
}

/** Softmax scale of the attention scores. */
export function smScale(c: ModelConfig): number {
  return c.queryPreAttnScalar ** -0.5;
}

/** window_left as vLLM/FlashInfer pass it: sliding_window − 1 on sliding layers, −1 (none) on full layers. */
export function windowLeft(c: ModelConfig, layer: number): number {
  return c.layerTypes[layer] === 'sliding' && c.slidingWindow !== null ? c.slidingWindow - 1 : -1;
}

export function ropeThetaFor(c: ModelConfig, layer: number): number {
  return c.layerTypes[layer] === 'sliding' ? c.ropeLocalTheta : c.ropeTheta;
}

type Json = Record<string, unknown>;

/** Parses config.json content; `file` is only used in error messages. */
export function parseModelConfig(raw: unknown, file: string): ModelConfig {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new UserError(`${file}: expected a JSON object`, { code: 'E_MODEL_CONFIG' });
  const j = raw as Json;
  const bad = (field: string, why: string): never => {
    throw new UserError(`${file}: "${field}" ${why}`, {
      code: 'E_MODEL_CONFIG',
      hint: 'see docs/model-format.md for the fields the engine reads',
    });
  };
  const int = (field: string, fallback?: number): number => {
    const v = j[field] ?? fallback;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) return bad(field, `must be a non-negative integer, got ${JSON.stringify(v)}`);
    return v;
  };
  const num = (field: string, fallback?: number): number => {
    const v = j[field] ?? fallback;
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) return bad(field, `must be a positive number, got ${JSON.stringify(v)}`);
    return v;
  };
  const hiddenSize = int('hidden_size');
  const numLayers = int('num_hidden_layers');
  const numHeads = int('num_attention_heads');
  const numKvHeads = int('num_key_value_heads', numHeads);
  const headDim = int('head_dim', numHeads > 0 ? hiddenSize / numHeads : 0);
  if (numHeads === 0 || numKvHeads === 0 || numHeads % numKvHeads !== 0)
    bad('num_key_value_heads', `must divide num_attention_heads (${numHeads}), got ${numKvHeads}`);
  if (headDim === 0 || headDim % 2 !== 0) bad('head_dim', `must be even and positive (RoPE rotates pairs), got ${headDim}`);

  const types = j.layer_types;
  if (!Array.isArray(types) || types.length !== numLayers)
    bad('layer_types', `must be an array of num_hidden_layers (${numLayers}) entries`);
  const layerTypes = (types as unknown[]).map((t, i): LayerType => {
    if (t === 'sliding_attention') return 'sliding';
    if (t === 'full_attention') return 'full';
    return bad(`layer_types[${i}]`, `must be "sliding_attention" or "full_attention", got ${JSON.stringify(t)}`);
  });
  const hasSliding = layerTypes.includes('sliding');
  const slidingWindow = hasSliding ? int('sliding_window') : null;
  if (slidingWindow !== null && slidingWindow < 1) bad('sliding_window', 'must be at least 1');

  const cap = j.final_logit_softcapping;
  if (cap !== undefined && cap !== null && (typeof cap !== 'number' || !(cap > 0)))
    bad('final_logit_softcapping', `must be null or a positive number, got ${JSON.stringify(cap)}`);

  const vocabSize = int('vocab_size');
  const bosTokenId = int('bos_token_id', 256);
  const eosTokenId = int('eos_token_id', 257);
  if (bosTokenId >= vocabSize || eosTokenId >= vocabSize) bad('vocab_size', 'must exceed bos_token_id and eos_token_id');
  if (j.tie_word_embeddings === false) bad('tie_word_embeddings', 'must be true: the engine ties the output head to the embedding');

  return {
    vocabSize,
    hiddenSize,
    intermediateSize: int('intermediate_size'),
    numLayers,
    numHeads,
    numKvHeads,
    headDim,
    layerTypes,
    slidingWindow,
    ropeTheta: num('rope_theta', 10000),
    ropeLocalTheta: num('rope_local_base_freq', 10000),
    queryPreAttnScalar: num('query_pre_attn_scalar', headDim),
    rmsNormEps: num('rms_norm_eps', 1e-6),
    finalLogitSoftcap: typeof cap === 'number' ? cap : null,
    maxPositions: int('max_position_embeddings', 2048),
    bosTokenId,
    eosTokenId,
    numMtpLayers: int('num_nextn_predict_layers', 0),
    declaresFp8KvCache: declaresFp8Kv(j.quantization_config),
  };
}

/** compressed-tensors style `kv_cache_scheme` with 8-bit floats (what vLLM turns into an FP8 cache under `auto`). */
function declaresFp8Kv(q: unknown): boolean {
  if (typeof q !== 'object' || q === null) return false;
  const scheme = (q as Json).kv_cache_scheme;
  if (typeof scheme !== 'object' || scheme === null) return false;
  const s = scheme as Json;
  return s.num_bits === 8 && (s.type === 'float' || s.type === undefined);
}
