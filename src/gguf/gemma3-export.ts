/**
 * A faultline model (config + Float32 weights) as a llama.cpp `gemma3` GGUF. The mapping and why it
 * is exact are in research llama-cpp-engine.md §4: Gemma's RMSNorm multiplies by (1 + w), which
 * llama.cpp expects folded into the stored weight (as its own converter does); sliding and full
 * layers follow gemma3's period (layer il slides when il % P < P − 1); both RoPE bases, QK-norm and
 * the tied output head carry over; the MTP head has no gemma3 slot and is left out.
 * Whatever llama.cpp's gemma3 would compute differently is refused here with the reason.
 */
import { UserError } from '../core/errors.js';
import type { ModelConfig } from '../engine/config.js';
import type { Model } from '../engine/model.js';
import { byteVocabularyMetadata } from './byte-vocabulary.js';
import { encodeTensor, Q8_0_BLOCK } from './encode-tensor.js';
import { DEFAULT_ALIGNMENT, f32, str, u32, type GgufValue, type TensorTypeName } from './format.js';
import type { GgufTensor } from './writer.js';

export const WEIGHT_TYPES = ['f32', 'bf16', 'q8_0'] as const;
export type WeightType = (typeof WEIGHT_TYPES)[number];

const TENSOR_TYPE: Record<WeightType, TensorTypeName> = { f32: 'F32', bf16: 'BF16', q8_0: 'Q8_0' };
/** llama.cpp's llama_ftype for general.file_type. */
const FILE_TYPE: Record<WeightType, number> = { f32: 0, bf16: 32, q8_0: 7 };

export interface Gemma3Export {
  metadata: Map<string, GgufValue>;
  tensors: GgufTensor[];
  /** What the GGUF leaves out, said once to the user. */
  notes: string[];
}

function refuse(why: string, hint: string): never {
  throw new UserError(`this model cannot be exported as a llama.cpp gemma3 GGUF: ${why}`, {
    code: 'E_MODEL',
    hint,
  });
}

/** The sliding-window period P with layer il sliding iff il % P < P − 1, or a refusal. */
export function slidingPattern(c: ModelConfig): number {
  const hint = 'llama.cpp gemma3 places sliding and full layers by a fixed period; only such models export';
  if (c.slidingWindow === null) refuse('it has no sliding-window layers (gemma3 needs them)', hint);
  for (let p = 2; p <= c.numLayers + 1; p++)
    if (c.layerTypes.every((t, il) => (t === 'sliding') === il % p < p - 1)) return p;
  return refuse(
    `its layer types (${c.layerTypes.join(', ')}) follow no period P of "P − 1 sliding, then 1 full"`,
    hint,
  );
}

function checkConfig(c: ModelConfig, type: WeightType): void {
  if (c.queryPreAttnScalar !== c.headDim)
    refuse(
      `query_pre_attn_scalar ${c.queryPreAttnScalar} ≠ head_dim ${c.headDim}; llama.cpp gemma3 scales attention by 1/sqrt(head_dim)`,
      'export a model whose query_pre_attn_scalar equals head_dim',
    );
  if (c.numLayers === 62)
    refuse(
      'llama.cpp treats a 62-layer gemma3 as the 27B model and changes its attention scale',
      'use another layer count',
    );
  if (c.finalLogitSoftcap !== null)
    refuse(
      'it caps its final logits; llama.cpp gemma3 applies no softcap',
      'export a model without final_logit_softcapping',
    );
  const byteVocab =
    c.vocabSize === 258 &&
    Math.min(c.bosTokenId, c.eosTokenId) === 256 &&
    Math.max(c.bosTokenId, c.eosTokenId) === 257;
  if (!byteVocab)
    refuse(
      `its vocabulary (${c.vocabSize} tokens, BOS ${c.bosTokenId}, EOS ${c.eosTokenId}) is not the byte vocabulary (256 bytes, then BOS and EOS)`,
      'only byte-level faultline models export',
    );
  if (type === 'q8_0')
    for (const [what, n] of [
      ['hidden_size', c.hiddenSize],
      ['intermediate_size', c.intermediateSize],
      ['heads × head_dim', c.numHeads * c.headDim],
    ] as const)
      if (n % Q8_0_BLOCK !== 0)
        refuse(
          `${what} ${n} is not a multiple of ${Q8_0_BLOCK}, Q8_0's block`,
          'export with --type f32 or bf16',
        );
}

/** Gemma's norms scale by (1 + w); llama.cpp's gemma3 multiplies by the stored weight, so store 1 + w. */
function shifted(w: Float32Array): Float32Array {
  return w.map((x) => x + 1);
}

export function exportGemma3(model: Model, name: string, type: WeightType): Gemma3Export {
  const c = model.config;
  checkConfig(c, type);
  const pattern = slidingPattern(c);
  const arch = 'gemma3';
  const metadata = new Map<string, GgufValue>([
    ['general.architecture', str(arch)],
    ['general.name', str(name)],
    ['general.alignment', u32(DEFAULT_ALIGNMENT)],
    ['general.file_type', u32(FILE_TYPE[type])],
    [`${arch}.context_length`, u32(c.maxPositions)],
    [`${arch}.embedding_length`, u32(c.hiddenSize)],
    [`${arch}.block_count`, u32(c.numLayers)],
    [`${arch}.feed_forward_length`, u32(c.intermediateSize)],
    [`${arch}.attention.head_count`, u32(c.numHeads)],
    [`${arch}.attention.head_count_kv`, u32(c.numKvHeads)],
    [`${arch}.attention.key_length`, u32(c.headDim)],
    [`${arch}.attention.value_length`, u32(c.headDim)],
    [`${arch}.attention.layer_norm_rms_epsilon`, f32(c.rmsNormEps)],
    [`${arch}.rope.freq_base`, f32(c.ropeTheta)],
    [`${arch}.rope.freq_base_swa`, f32(c.ropeLocalTheta)],
    [`${arch}.attention.sliding_window`, u32(c.slidingWindow!)],
    [`${arch}.attention.sliding_window_pattern`, u32(pattern)],
    ...byteVocabularyMetadata(c.bosTokenId, c.eosTokenId),
  ]);
  const matrixType = TENSOR_TYPE[type];
  const tensors: GgufTensor[] = [];
  const norm = (name: string, w: Float32Array) =>
    tensors.push({ name, dims: [w.length], type: 'F32', data: encodeTensor(shifted(w), 'F32') });
  // torch [out, in] row-major is ggml ne [in, out]: the same bytes, the dimensions listed innermost first
  const matrix = (name: string, w: Float32Array, out: number, inner: number) =>
    tensors.push({ name, dims: [inner, out], type: matrixType, data: encodeTensor(w, matrixType) });
  const w = model.weights;
  const { hiddenSize: d, intermediateSize: I, numHeads: Hq, numKvHeads: Hkv, headDim: hd } = c;
  matrix('token_embd.weight', w.embed, c.vocabSize, d);
  norm('output_norm.weight', w.finalNorm);
  w.layers.forEach((l, i) => {
    const p = `blk.${i}`;
    norm(`${p}.attn_norm.weight`, l.inputNorm);
    matrix(`${p}.attn_q.weight`, l.wq, Hq * hd, d);
    matrix(`${p}.attn_k.weight`, l.wk, Hkv * hd, d);
    matrix(`${p}.attn_v.weight`, l.wv, Hkv * hd, d);
    matrix(`${p}.attn_output.weight`, l.wo, d, Hq * hd);
    norm(`${p}.attn_q_norm.weight`, l.qNorm);
    norm(`${p}.attn_k_norm.weight`, l.kNorm);
    norm(`${p}.post_attention_norm.weight`, l.postAttnNorm);
    norm(`${p}.ffn_norm.weight`, l.preFfnNorm);
    matrix(`${p}.ffn_gate.weight`, l.wGate, I, d);
    matrix(`${p}.ffn_up.weight`, l.wUp, I, d);
    matrix(`${p}.ffn_down.weight`, l.wDown, d, I);
    norm(`${p}.post_ffw_norm.weight`, l.postFfnNorm);
  });
  const notes: string[] = [];
  if (w.mtp) notes.push('the MTP head is left out (llama.cpp gemma3 has no slot for it)');
  if (w.scalesPresent.k || w.scalesPresent.v || w.scalesPresent.q)
    notes.push('the FP8 attention scales are left out (llama.cpp has no FP8 KV cache)');
  return { metadata, tensors, notes };
}
