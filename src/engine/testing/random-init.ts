/**
 * Seeded random models for tests and benchmarks only (never a substitute for a checkpoint).
 * Weights are drawn like the training code's init (projections N(0, 0.02), embedding N(0, 1/d)),
 * with norm weights and their scales slightly random so that every (1 + w) path is exercised,
 * and rounded to BF16 as a checkpoint would store them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRng } from '../../core/rng.js';
import { writeSafetensors } from '../../tensors/safetensors.js';
import { fromFloat32, type Tensor } from '../../tensors/tensor.js';
import { roundToBf16 } from '../../numerics/bf16.js';
import type { ModelConfig } from '../config.js';
import type { Model } from '../model.js';
import type { AttentionScales, LayerWeights, MtpWeights } from '../weights.js';

/** A small Gemma-like config; override any field. Defaults: 2 sliding layers + 1 full, window 16. */
export function tinyConfig(overrides: Partial<ModelConfig> = {}): ModelConfig {
  return {
    vocabSize: 258,
    hiddenSize: 64,
    intermediateSize: 128,
    numLayers: 3,
    numHeads: 4,
    numKvHeads: 2,
    headDim: 16,
    layerTypes: ['sliding', 'sliding', 'full'],
    slidingWindow: 16,
    ropeTheta: 1_000_000,
    ropeLocalTheta: 10_000,
    queryPreAttnScalar: 16,
    rmsNormEps: 1e-6,
    finalLogitSoftcap: null,
    maxPositions: 512,
    bosTokenId: 256,
    eosTokenId: 257,
    numMtpLayers: 1,
    declaresFp8KvCache: false,
    ...overrides,
  };
}

export interface RandomModelOptions {
  seed: number;
  /** Per-layer attention scales (default all 1.0). */
  scales?: AttentionScales[];
  /** Std of the projection weights (default 0.02; larger makes attention peakier). */
  std?: number;
}

export function randomModel(c: ModelConfig, options: RandomModelOptions): Model {
  const rng = createRng(options.seed);
  const std = options.std ?? 0.02;
  const normal = (n: number, s: number): Float32Array => {
    const a = new Float32Array(n);
    for (let i = 0; i < n; i++) a[i] = roundToBf16(rng.normal() * s);
    return a;
  };
  const { hiddenSize: d, intermediateSize: I, numHeads: hq, numKvHeads: hkv, headDim: hd } = c;
  const norm = (n: number) => normal(n, 0.1);
  const layers: LayerWeights[] = [];
  for (let l = 0; l < c.numLayers; l++)
    layers.push({
      inputNorm: norm(d),
      wq: normal(hq * hd * d, std),
      wk: normal(hkv * hd * d, std),
      wv: normal(hkv * hd * d, std),
      wo: normal(d * hq * hd, std),
      qNorm: norm(hd),
      kNorm: norm(hd),
      postAttnNorm: norm(d),
      preFfnNorm: norm(d),
      postFfnNorm: norm(d),
      wGate: normal(I * d, std),
      wUp: normal(I * d, std),
      wDown: normal(d * I, std),
    });
  const mtp: MtpWeights = {
    hnorm: norm(d),
    enorm: norm(d),
    ehProj: normal(d * 2 * d, std),
    preFfnNorm: norm(d),
    wGate: normal(I * d, std),
    wUp: normal(I * d, std),
    wDown: normal(d * I, std),
    postFfnNorm: norm(d),
    norm: norm(d),
  };
  const scales = options.scales ?? Array.from({ length: c.numLayers }, () => ({ q: 1, k: 1, v: 1 }));
  return {
    config: c,
    weights: {
      embed: normal(c.vocabSize * d, 1 / Math.sqrt(d)),
      layers,
      finalNorm: norm(d),
      mtp: c.numMtpLayers > 0 ? mtp : null,
      scales,
      scalesPresent: { q: Boolean(options.scales), k: Boolean(options.scales), v: Boolean(options.scales) },
    },
  };
}

/** The HF-style config.json of a config (inverse of parseModelConfig). */
export function configJson(c: ModelConfig): Record<string, unknown> {
  return {
    architectures: ['FaultlineTinySwaForCausalLM'],
    model_type: 'faultline_tiny_swa',
    vocab_size: c.vocabSize,
    bos_token_id: c.bosTokenId,
    eos_token_id: c.eosTokenId,
    hidden_size: c.hiddenSize,
    intermediate_size: c.intermediateSize,
    num_hidden_layers: c.numLayers,
    num_attention_heads: c.numHeads,
    num_key_value_heads: c.numKvHeads,
    head_dim: c.headDim,
    layer_types: c.layerTypes.map((t) => (t === 'sliding' ? 'sliding_attention' : 'full_attention')),
    sliding_window: c.slidingWindow,
    rope_theta: c.ropeTheta,
    rope_local_base_freq: c.ropeLocalTheta,
    query_pre_attn_scalar: c.queryPreAttnScalar,
    rms_norm_eps: c.rmsNormEps,
    final_logit_softcapping: c.finalLogitSoftcap,
    max_position_embeddings: c.maxPositions,
    tie_word_embeddings: true,
    torch_dtype: 'bfloat16',
    num_nextn_predict_layers: c.numMtpLayers,
    ...(c.declaresFp8KvCache
      ? {
          quantization_config: {
            quant_method: 'compressed-tensors',
            kv_cache_scheme: { num_bits: 8, type: 'float', strategy: 'tensor', dynamic: false, symmetric: true },
          },
        }
      : {}),
  };
}

/** Checkpoint tensors of a model: weights BF16 (names of docs/model-format.md), scales F32 scalars when present. */
export function modelTensors(m: Model): Record<string, Tensor> {
  const { config: c, weights: w } = m;
  const { hiddenSize: d, intermediateSize: I, numHeads: hq, numKvHeads: hkv, headDim: hd } = c;
  const t: Record<string, Tensor> = {};
  const put = (name: string, data: Float32Array, shape: number[]) => (t[name] = fromFloat32(data, 'BF16', shape));
  put('model.embed_tokens.weight', w.embed, [c.vocabSize, d]);
  put('model.norm.weight', w.finalNorm, [d]);
  w.layers.forEach((l, i) => {
    const p = `model.layers.${i}`;
    put(`${p}.input_layernorm.weight`, l.inputNorm, [d]);
    put(`${p}.self_attn.q_proj.weight`, l.wq, [hq * hd, d]);
    put(`${p}.self_attn.k_proj.weight`, l.wk, [hkv * hd, d]);
    put(`${p}.self_attn.v_proj.weight`, l.wv, [hkv * hd, d]);
    put(`${p}.self_attn.o_proj.weight`, l.wo, [d, hq * hd]);
    put(`${p}.self_attn.q_norm.weight`, l.qNorm, [hd]);
    put(`${p}.self_attn.k_norm.weight`, l.kNorm, [hd]);
    put(`${p}.post_attention_layernorm.weight`, l.postAttnNorm, [d]);
    put(`${p}.pre_feedforward_layernorm.weight`, l.preFfnNorm, [d]);
    put(`${p}.post_feedforward_layernorm.weight`, l.postFfnNorm, [d]);
    put(`${p}.mlp.gate_proj.weight`, l.wGate, [I, d]);
    put(`${p}.mlp.up_proj.weight`, l.wUp, [I, d]);
    put(`${p}.mlp.down_proj.weight`, l.wDown, [d, I]);
    for (const kind of ['q', 'k', 'v'] as const)
      if (w.scalesPresent[kind]) t[`${p}.self_attn.${kind}_scale`] = fromFloat32(Float32Array.of(w.scales[i][kind]), 'F32', []);
  });
  if (w.mtp) {
    put('mtp.hnorm.weight', w.mtp.hnorm, [d]);
    put('mtp.enorm.weight', w.mtp.enorm, [d]);
    put('mtp.eh_proj.weight', w.mtp.ehProj, [d, 2 * d]);
    put('mtp.pre_feedforward_layernorm.weight', w.mtp.preFfnNorm, [d]);
    put('mtp.mlp.gate_proj.weight', w.mtp.wGate, [I, d]);
    put('mtp.mlp.up_proj.weight', w.mtp.wUp, [I, d]);
    put('mtp.mlp.down_proj.weight', w.mtp.wDown, [d, I]);
    put('mtp.post_feedforward_layernorm.weight', w.mtp.postFfnNorm, [d]);
    put('mtp.norm.weight', w.mtp.norm, [d]);
  }
  return t;
}

/** Writes config.json + model.safetensors (tests and benchmarks build throwaway model directories). */
export function writeModelDir(dir: string, m: Model): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.json'), JSON.stringify(configJson(m.config), null, 2));
  writeSafetensors(join(dir, 'model.safetensors'), modelTensors(m));
}
