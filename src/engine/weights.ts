/**
 * The model's parameters as Float32Array, decoded from the BF16 checkpoint once at load
 * (every BF16 value is exactly a float32, so nothing is lost). Linear weights keep torch's
 * [out, in] row-major layout: a matvec is then one contiguous dot product per output.
 *
 * `weightsFromTensors` maps the checkpoint names of docs/model-format.md onto this struct
 * through a getter, so it works with any tensor source (safetensors shards, tests).
 */
import { UserError } from '../core/errors.js';
import type { ModelConfig } from './config.js';

export interface LayerWeights {
  inputNorm: Float32Array; // [d]
  wq: Float32Array; // [Hq*hd, d]
  wk: Float32Array; // [Hkv*hd, d]
  wv: Float32Array; // [Hkv*hd, d]
  wo: Float32Array; // [d, Hq*hd]
  qNorm: Float32Array; // [hd]
  kNorm: Float32Array; // [hd]
  postAttnNorm: Float32Array; // [d]
  preFfnNorm: Float32Array; // [d]
  postFfnNorm: Float32Array; // [d]
  wGate: Float32Array; // [I, d]
  wUp: Float32Array; // [I, d]
  wDown: Float32Array; // [d, I]
}

/** The MTP draft head (docs/model-format.md "MTP head"); no attention. */
export interface MtpWeights {
  hnorm: Float32Array; // [d]
  enorm: Float32Array; // [d]
  ehProj: Float32Array; // [d, 2d]
  preFfnNorm: Float32Array; // [d]
  wGate: Float32Array; // [I, d]
  wUp: Float32Array; // [I, d]
  wDown: Float32Array; // [d, I]
  postFfnNorm: Float32Array; // [d]
  norm: Float32Array; // [d]
}

/** Per-layer per-tensor attention scales (FP8 calibration); 1.0 where the checkpoint has none. */
export interface AttentionScales {
  q: number;
  k: number;
  v: number;
}

export interface Weights {
  embed: Float32Array; // [V, d] (also the tied output head)
  layers: LayerWeights[]; // [L]
  finalNorm: Float32Array; // [d]
  mtp: MtpWeights | null;
  scales: AttentionScales[]; // [L]
  /** Which scale tensors the checkpoint actually carries (vLLM treats absent as 1.0). */
  scalesPresent: { q: boolean; k: boolean; v: boolean };
}

/** A tensor as the loader hands it over: shape plus values widened to float32. */
export interface LoadedTensor {
  shape: readonly number[];
  data: Float32Array;
}

export type TensorGetter = (name: string) => LoadedTensor | undefined;

/** Every tensor name a model with this config needs (scales and MTP excluded: they are optional). */
export function requiredTensorNames(c: ModelConfig): string[] {
  const names = ['model.embed_tokens.weight', 'model.norm.weight'];
  for (let i = 0; i < c.numLayers; i++) names.push(...layerTensorNames(i));
  return names;
}

function layerTensorNames(i: number): string[] {
  const p = `model.layers.${i}`;
  return [
    `${p}.input_layernorm.weight`,
    `${p}.self_attn.q_proj.weight`,
    `${p}.self_attn.k_proj.weight`,
    `${p}.self_attn.v_proj.weight`,
    `${p}.self_attn.o_proj.weight`,
    `${p}.self_attn.q_norm.weight`,
    `${p}.self_attn.k_norm.weight`,
    `${p}.post_attention_layernorm.weight`,
    `${p}.pre_feedforward_layernorm.weight`,
    `${p}.post_feedforward_layernorm.weight`,
    `${p}.mlp.gate_proj.weight`,
    `${p}.mlp.up_proj.weight`,
    `${p}.mlp.down_proj.weight`,
  ];
}

/** Builds Weights from named tensors, checking every shape; `source` names the checkpoint in errors. */
export function weightsFromTensors(c: ModelConfig, get: TensorGetter, source: string): Weights {
  const { hiddenSize: d, intermediateSize: inner, numHeads: hq, numKvHeads: hkv, headDim: hd } = c;
  const take = (name: string, shape: number[]): Float32Array => {
    const t = get(name);
    if (!t)
      throw new UserError(`${source}: tensor "${name}" is missing`, {
        code: 'E_CHECKPOINT',
        hint: 'the checkpoint does not match config.json; see docs/model-format.md for the tensor names',
      });
    if (t.shape.length !== shape.length || t.shape.some((n, i) => n !== shape[i]))
      throw new UserError(`${source}: tensor "${name}" has shape [${t.shape.join(', ')}], expected [${shape.join(', ')}]`, {
        code: 'E_CHECKPOINT',
        hint: 'the checkpoint does not match config.json',
      });
    return t.data;
  };
  const layers: LayerWeights[] = [];
  for (let i = 0; i < c.numLayers; i++) {
    const p = `model.layers.${i}`;
    layers.push({
      inputNorm: take(`${p}.input_layernorm.weight`, [d]),
      wq: take(`${p}.self_attn.q_proj.weight`, [hq * hd, d]),
      wk: take(`${p}.self_attn.k_proj.weight`, [hkv * hd, d]),
      wv: take(`${p}.self_attn.v_proj.weight`, [hkv * hd, d]),
      wo: take(`${p}.self_attn.o_proj.weight`, [d, hq * hd]),
      qNorm: take(`${p}.self_attn.q_norm.weight`, [hd]),
      kNorm: take(`${p}.self_attn.k_norm.weight`, [hd]),
      postAttnNorm: take(`${p}.post_attention_layernorm.weight`, [d]),
      preFfnNorm: take(`${p}.pre_feedforward_layernorm.weight`, [d]),
      postFfnNorm: take(`${p}.post_feedforward_layernorm.weight`, [d]),
      wGate: take(`${p}.mlp.gate_proj.weight`, [inner, d]),
      wUp: take(`${p}.mlp.up_proj.weight`, [inner, d]),
      wDown: take(`${p}.mlp.down_proj.weight`, [d, inner]),
    });
  }
  const mtp: MtpWeights | null =
    c.numMtpLayers > 0 && get('mtp.eh_proj.weight')
      ? {
          hnorm: take('mtp.hnorm.weight', [d]),
          enorm: take('mtp.enorm.weight', [d]),
          ehProj: take('mtp.eh_proj.weight', [d, 2 * d]),
          preFfnNorm: take('mtp.pre_feedforward_layernorm.weight', [d]),
          wGate: take('mtp.mlp.gate_proj.weight', [inner, d]),
          wUp: take('mtp.mlp.up_proj.weight', [inner, d]),
          wDown: take('mtp.mlp.down_proj.weight', [d, inner]),
          postFfnNorm: take('mtp.post_feedforward_layernorm.weight', [d]),
          norm: take('mtp.norm.weight', [d]),
        }
      : null;
  const { scales, present } = readScales(c, get, source);
  return {
    embed: take('model.embed_tokens.weight', [c.vocabSize, d]),
    layers,
    finalNorm: take('model.norm.weight', [d]),
    mtp,
    scales,
    scalesPresent: present,
  };
}

/**
 * Per-layer q/k/v scales. vLLM's rule (research vllm-flashinfer.md §4): a scale that is absent
 * (or non-positive, its "unset" sentinel) counts as 1.0. A present scale must be a positive scalar.
 */
function readScales(c: ModelConfig, get: TensorGetter, source: string) {
  const present = { q: false, k: false, v: false };
  const scales: AttentionScales[] = [];
  for (let i = 0; i < c.numLayers; i++) {
    const one = (kind: 'q' | 'k' | 'v'): number => {
      const name = `model.layers.${i}.self_attn.${kind}_scale`;
      const t = get(name);
      if (!t) return 1;
      if (t.data.length !== 1)
        throw new UserError(`${source}: "${name}" must be a per-tensor scalar, has ${t.data.length} values`, {
          code: 'E_CHECKPOINT',
          hint: 'only per-tensor FP8 KV scales are supported (as in vLLM)',
        });
      present[kind] = true;
      const v = t.data[0];
      if (!Number.isFinite(v)) throw new UserError(`${source}: "${name}" is not finite (${v})`, { code: 'E_CHECKPOINT' });
      return v > 0 ? v : 1;
    };
    scales.push({ q: one('q'), k: one('k'), v: one('v') });
  }
  return { scales, present };
}
