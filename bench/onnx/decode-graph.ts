/**
 * The engine's model as an ONNX graph of ONE decode step, for the onnxruntime anchor of
 * `npm run bench:engine`: the same weights (float32, widened exactly from the BF16 checkpoint), the
 * same operations in the same order as model.ts `forward` in fp32 mode — embedding · √d, per layer
 * Gemma RMSNorm (· (1 + w)), q/k/v projections, QK-norm, NeoX RoPE from the same cos/sin tables,
 * GQA attention over the past keys plus the new one, o_proj, post-attention norm, residual, the
 * GeGLU MLP with its two norms, residual; final norm, the tied output head.
 *
 * Inputs: `tokens` [B] and `positions` [B] (int64); per layer `past_k{l}` [B, Hkv, hd, T_l] (keys
 * stored transposed, as a cache laid out for this graph) and `past_v{l}` [B, Hkv, T_l, hd], T_l the
 * keys the row attends before itself (the bench passes exactly the window's). No mask: every past key
 * given is attended. Outputs: `logits` [B, V], and per layer the new row's `k{l}`, `v{l}` [B, Hkv, hd]
 * (what the engine writes to its cache).
 */
import { ropeThetaFor, smScale } from '../../src/engine/config.js';
import type { Model } from '../../src/engine/model.js';
import { buildRopeTable } from '../../src/engine/ops.js';
import { DType, encodeModel, floatTensor, int64Tensor, type Node, type Tensor, type ValueInfo } from './protobuf.js';

/** [O, D] row-major (torch) → [D, O] (ONNX MatMul's right operand). */
function transpose(w: Float32Array, O: number, D: number): Float32Array {
  const t = new Float32Array(w.length);
  for (let o = 0; o < O; o++) for (let i = 0; i < D; i++) t[i * O + o] = w[o * D + i];
  return t;
}

const plusOne = (w: Float32Array) => Float32Array.from(w, (x) => Math.fround(1 + x));

export function decodeGraph(model: Model): Uint8Array {
  const { config: c, weights: w } = model;
  const { hiddenSize: d, numHeads: hq, numKvHeads: hkv, headDim: hd, intermediateSize: I, vocabSize: V, rmsNormEps: eps } = c;
  const half = hd / 2;
  const nodes: Node[] = [];
  const inits: Tensor[] = [];
  let n = 0;
  const tmp = (hint: string) => `${hint}_${n++}`;
  const op = (type: string, inputs: string[], attributes?: Node['attributes'], out = tmp(type)): string => {
    nodes.push({ op: type, inputs, outputs: [out], attributes });
    return out;
  };
  const init = (name: string, dims: number[], values: Float32Array) => (inits.push(floatTensor(name, dims, values)), name);
  const ints = (name: string, values: number[]) => (inits.push(int64Tensor(name, [values.length], values)), name);
  const scalar = (name: string, v: number) => init(name, [], Float32Array.of(v));

  scalar('eps', eps);
  scalar('one', 1);
  scalar('sqrt_d', Math.fround(Math.sqrt(d)));
  scalar('sm_scale', smScale(c));
  ints('axis_last', [-1]);
  ints('shape_rows_q', [0, hq, hd]);
  ints('shape_rows_kv', [0, hkv, hd]);
  ints('shape_gqa', [0, hkv, hq / hkv, hd]);
  ints('shape_flat_q', [0, hq * hd]);
  ints('halves', [half, half]);
  ints('axis_1', [1]);
  ints('axis_2', [2]);
  ints('axis_3', [3]);

  // Gemma RMSNorm over the last axis: x · 1/sqrt(mean(x²) + eps) · (1 + w)
  const rmsNorm = (x: string, weight: string) => {
    const ms = op('ReduceMean', [op('Mul', [x, x]), 'axis_last'], { keepdims: { int: 1 } });
    const inv = op('Div', ['one', op('Sqrt', [op('Add', [ms, 'eps'])])]);
    return op('Mul', [op('Mul', [x, inv]), weight]);
  };
  const linear = (x: string, name: string, weight: Float32Array, O: number, D: number) => op('MatMul', [x, init(name, [D, O], transpose(weight, O, D))]);
  // NeoX rotate-half on [B, H, hd] with cos/sin [B, 1, hd/2]
  const rope = (x: string, cos: string, sin: string) => {
    const a = tmp('a'), b = tmp('b');
    nodes.push({ op: 'Split', inputs: [x, 'halves'], outputs: [a, b], attributes: { axis: { int: -1 } } });
    const first = op('Sub', [op('Mul', [a, cos]), op('Mul', [b, sin])]);
    const second = op('Add', [op('Mul', [b, cos]), op('Mul', [a, sin])]);
    return op('Concat', [first, second], { axis: { int: -1 } });
  };

  const inputs: ValueInfo[] = [
    { name: 'tokens', type: DType.INT64, shape: ['batch'] },
    { name: 'positions', type: DType.INT64, shape: ['batch'] },
  ];
  const outputs: ValueInfo[] = [{ name: 'logits', type: DType.FLOAT, shape: ['batch', V] }];

  let x = op('Mul', [op('Gather', [init('embed', [V, d], w.embed), 'tokens'], { axis: { int: 0 } }), 'sqrt_d']);
  const ropeRows = new Map<number, { cos: string; sin: string }>();
  for (let l = 0; l < c.numLayers; l++) {
    const lw = w.layers[l];
    const theta = ropeThetaFor(c, l);
    if (!ropeRows.has(theta)) {
      const t = buildRopeTable(theta, hd, c.maxPositions, false);
      const rows = (table: Float32Array, name: string) =>
        op('Unsqueeze', [op('Gather', [init(`${name}_${theta}`, [c.maxPositions, half], table), 'positions'], { axis: { int: 0 } }), 'axis_1']);
      ropeRows.set(theta, { cos: rows(t.cos, 'cos'), sin: rows(t.sin, 'sin') });
    }
    const { cos, sin } = ropeRows.get(theta)!;
    const a = rmsNorm(x, init(`l${l}_input_norm`, [d], plusOne(lw.inputNorm)));
    const q = op('Reshape', [linear(a, `l${l}_wq`, lw.wq, hq * hd, d), 'shape_rows_q']);
    const k = op('Reshape', [linear(a, `l${l}_wk`, lw.wk, hkv * hd, d), 'shape_rows_kv']);
    const v = op('Reshape', [linear(a, `l${l}_wv`, lw.wv, hkv * hd, d), 'shape_rows_kv'], undefined, `v${l}`);
    const qr = rope(rmsNorm(q, init(`l${l}_q_norm`, [hd], plusOne(lw.qNorm))), cos, sin);
    const kr = op('Identity', [rope(rmsNorm(k, init(`l${l}_k_norm`, [hd], plusOne(lw.kNorm))), cos, sin)], undefined, `k${l}`);
    outputs.push({ name: `k${l}`, type: DType.FLOAT, shape: ['batch', hkv, hd] }, { name: `v${l}`, type: DType.FLOAT, shape: ['batch', hkv, hd] });
    inputs.push(
      { name: `past_k${l}`, type: DType.FLOAT, shape: ['batch', hkv, hd, `past${l}`] },
      { name: `past_v${l}`, type: DType.FLOAT, shape: ['batch', hkv, `past${l}`, hd] },
    );
    // keys [B, Hkv, hd, T+1] and values [B, Hkv, T+1, hd]: the past and the new row
    const keys = op('Concat', [`past_k${l}`, op('Unsqueeze', [kr, 'axis_3'])], { axis: { int: 3 } });
    const values = op('Concat', [`past_v${l}`, op('Unsqueeze', [v, 'axis_2'])], { axis: { int: 2 } });
    const q4 = op('Reshape', [qr, 'shape_gqa']); // [B, Hkv, G, hd]
    const scores = op('Mul', [op('MatMul', [q4, keys]), 'sm_scale']); // [B, Hkv, G, T+1]
    const att = op('Reshape', [op('MatMul', [op('Softmax', [scores], { axis: { int: -1 } }), values]), 'shape_flat_q']);
    const o = rmsNorm(linear(att, `l${l}_wo`, lw.wo, d, hq * hd), init(`l${l}_post_attn_norm`, [d], plusOne(lw.postAttnNorm)));
    x = op('Add', [x, o]);
    const m = rmsNorm(x, init(`l${l}_pre_ffn_norm`, [d], plusOne(lw.preFfnNorm)));
    const gate = op('Gelu', [linear(m, `l${l}_w_gate`, lw.wGate, I, d)], { approximate: { str: 'tanh' } });
    const h = op('Mul', [gate, linear(m, `l${l}_w_up`, lw.wUp, I, d)]);
    x = op('Add', [x, rmsNorm(linear(h, `l${l}_w_down`, lw.wDown, d, I), init(`l${l}_post_ffn_norm`, [d], plusOne(lw.postFfnNorm)))]);
  }
  const xn = rmsNorm(x, init('final_norm', [d], plusOne(w.finalNorm)));
  op('MatMul', [xn, init('embed_t', [d, V], transpose(w.embed, V, d))], undefined, 'logits');
  return encodeModel({ name: 'faultline_decode_step', nodes, initializers: inits, inputs, outputs }, 20);
}

