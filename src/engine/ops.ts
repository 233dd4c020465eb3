/**
 * The model's kernels: small, allocation-free loops over Float32Array, shapes in the comments.
 * Arithmetic is float64 (JS numbers) inside a kernel and float32 when stored, so "fp32 mode"
 * is at least as exact as PyTorch's fp32; bf16 mode rounds the stored results afterwards
 * (see `Precision` in model.ts and engine/README.md for where).
 */
import { roundToBf16 } from '../numerics/bf16.js';

/**
 * out[n, O] = x[n, D] · w[O, D]ᵀ (torch Linear, weight [out, in]).
 * Each output is one dot product with four partial sums (what lets V8 keep several multiply-adds
 * in flight), summed as (a0 + a1) + (a2 + a3). Every row uses exactly the same sequence of
 * operations whatever n is, so results are batch-invariant; rows share each pass over a weight
 * row while it is in cache.
 */
export function matmul(out: Float32Array, x: Float32Array, w: Float32Array, n: number, D: number, O: number): void {
  if (n === 1) return matvec(out, 0, x, 0, w, D, O);
  const D4 = D - (D % 4);
  for (let o = 0; o < O; o++) {
    const wo = o * D;
    for (let r = 0; r < n; r++) {
      const xo = r * D;
      let a0 = 0, a1 = 0, a2 = 0, a3 = 0;
      for (let i = 0; i < D4; i += 4) {
        a0 += w[wo + i] * x[xo + i];
        a1 += w[wo + i + 1] * x[xo + i + 1];
        a2 += w[wo + i + 2] * x[xo + i + 2];
        a3 += w[wo + i + 3] * x[xo + i + 3];
      }
      for (let i = D4; i < D; i++) a0 += w[wo + i] * x[xo + i];
      out[r * O + o] = a0 + a1 + (a2 + a3);
    }
  }
}

/** out[oo + o] = Σ_i w[o, i] · x[xo + i] for one row (the n = 1 case of matmul, same operation order). */
export function matvec(out: Float32Array, oo: number, x: Float32Array, xo: number, w: Float32Array, D: number, O: number): void {
  const D4 = D - (D % 4);
  for (let o = 0; o < O; o++) {
    const wo = o * D;
    let a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (let i = 0; i < D4; i += 4) {
      a0 += w[wo + i] * x[xo + i];
      a1 += w[wo + i + 1] * x[xo + i + 1];
      a2 += w[wo + i + 2] * x[xo + i + 2];
      a3 += w[wo + i + 3] * x[xo + i + 3];
    }
    for (let i = D4; i < D; i++) a0 += w[wo + i] * x[xo + i];
    out[oo + o] = a0 + a1 + (a2 + a3);
  }
}

/** Gemma RMSNorm over rows of length `dim`: out = x · rsqrt(mean(x²) + eps) · (1 + w). out may alias x. */
export function rmsNorm(out: Float32Array, x: Float32Array, w: Float32Array, rows: number, dim: number, eps: number): void {
  for (let r = 0; r < rows; r++) {
    const base = r * dim;
    let ss = 0;
    for (let i = 0; i < dim; i++) ss += x[base + i] * x[base + i];
    // fp32 like torch: mean and rsqrt of a float32 tensor are float32 values
    const inv = Math.fround(1 / Math.sqrt(Math.fround(Math.fround(ss / dim) + eps)));
    for (let i = 0; i < dim; i++) out[base + i] = Math.fround(x[base + i] * inv) * Math.fround(1 + w[i]);
  }
}

/**
 * RoPE tables for one base: cos/sin [maxPos, hd/2], angle = pos · theta^(−2i/hd) in float64,
 * rounded once to float32 (the training code does the same, so both sides share the table).
 */
export interface RopeTable {
  cos: Float32Array; // [maxPos, hd/2]
  sin: Float32Array; // [maxPos, hd/2]
  half: number;
  maxPos: number;
}

export function buildRopeTable(theta: number, headDim: number, maxPos: number, bf16: boolean): RopeTable {
  const half = headDim / 2;
  const cos = new Float32Array(maxPos * half);
  const sin = new Float32Array(maxPos * half);
  for (let p = 0; p < maxPos; p++) {
    for (let i = 0; i < half; i++) {
      const angle = p * theta ** ((-2 * i) / headDim);
      // a BF16 serving stack stores its cos/sin cache in the model dtype
      cos[p * half + i] = bf16 ? roundToBf16(Math.cos(angle)) : Math.cos(angle);
      sin[p * half + i] = bf16 ? roundToBf16(Math.sin(angle)) : Math.sin(angle);
    }
  }
  return { cos, sin, half, maxPos };
}

/**
 * NeoX rotate-half RoPE in place on x[rows, heads, hd], row r at position pos[r]:
 * (a, b) = (x[i], x[i + hd/2]) → (a·cos − b·sin, b·cos + a·sin).
 */
export function applyRope(x: Float32Array, positions: ArrayLike<number>, rows: number, heads: number, t: RopeTable): void {
  const half = t.half;
  for (let r = 0; r < rows; r++) {
    const tb = positions[r] * half;
    for (let h = 0; h < heads; h++) {
      const base = (r * heads + h) * 2 * half;
      for (let i = 0; i < half; i++) {
        const a = x[base + i], b = x[base + half + i];
        const c = t.cos[tb + i], s = t.sin[tb + i];
        x[base + i] = Math.fround(a * c) - Math.fround(b * s);
        x[base + half + i] = Math.fround(b * c) + Math.fround(a * s);
      }
    }
  }
}

const GELU_K = Math.sqrt(2 / Math.PI);

/** gate[i] = gelu_tanh(gate[i]) · up[i] (GeGLU), in place on gate. */
export function geglu(gate: Float32Array, up: Float32Array, len: number): void {
  for (let i = 0; i < len; i++) {
    const g = gate[i];
    const act = 0.5 * g * (1 + Math.tanh(GELU_K * (g + 0.044715 * g * g * g)));
    gate[i] = Math.fround(act) * up[i];
  }
}

/** x[i] += y[i] (the residual add). */
export function addInPlace(x: Float32Array, y: Float32Array, len: number): void {
  for (let i = 0; i < len; i++) x[i] += y[i];
}

/** logits = c · tanh(logits / c) (Gemma 2's final soft-cap). */
export function softcap(x: Float32Array, cap: number, len: number): void {
  for (let i = 0; i < len; i++) x[i] = cap * Math.tanh(x[i] / cap);
}

/** Round the first len values to BF16 in place (where a BF16 serving stack stores a tensor). */
export function roundBf16(x: Float32Array, len: number): void {
  for (let i = 0; i < len; i++) x[i] = roundToBf16(x[i]);
}
