/**
 * Seeded random models for tests and benchmarks only (never a substitute for a checkpoint).
 * Weights are drawn like the training code's init (projections N(0, 0.02), embedding N(0, 1/d)),
 * with norm weights and their scales slightly random so that every (1 + w) path is exercised,
 * and rounded to BF16 as a checkpoint would store them.
 */
import { createRng } from '../core/rng.js';
import { roundToBf16 } from '../numerics/bf16.js';
import type { ModelConfig } from './config.js';
import type { Model } from './model.js';
import type { AttentionScales, LayerWeights, MtpWeights } from './weights.js';

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
