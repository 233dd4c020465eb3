/**
 * The model's kernels: small, allocation-free loops over Float32Array, shapes in the comments.
 * Arithmetic is float64 (JS numbers) inside a kernel and float32 when stored, so "fp32 mode"
 * is at least as exact as PyTorch's fp32; bf16 mode rounds the stored results afterwards
 * (see `Precision` in model.ts and engine/README.md for where).
 */
import { roundToBf16 } from '../numerics/bf16.js';
import { nativeKernels } from './native.js';

const native = nativeKernels();

/**
 * out[n, O] = x[n, D] · w[O, D]ᵀ (torch Linear, weight [out, in]).
 * Every output is a plain sequential dot product (i = 0 … D−1, float64 accumulator), whatever n
 * is, so results are batch-invariant. For speed, four outputs are computed in one pass over x:
 * each x[i] is loaded once for four weight rows, which is what makes a JS matvec ~2× faster
 * than one dot product at a time.
 */
/** A matmul implementation: this file's (float64 accumulation) or the WebAssembly SIMD one (wasm/accelerate.ts). */
export type MatmulFn = (out: Float32Array, x: Float32Array, w: Float32Array, n: number, D: number, O: number) => void;

export function matmul(out: Float32Array, x: Float32Array, w: Float32Array, n: number, D: number, O: number): void {
  for (let r = 0; r < n; r++) matvec(out, r * O, x, r * D, w, D, O);
}

/** out[oo + o] = Σ_i w[o, i] · x[xo + i] for one row (see matmul). */
export function matvec(out: Float32Array, oo: number, x: Float32Array, xo: number, w: Float32Array, D: number, O: number): void {
  let o = 0;
  for (; o + 4 <= O; o += 4) {
    const w0 = o * D, w1 = w0 + D, w2 = w1 + D, w3 = w2 + D;
    let a = 0, b = 0, c = 0, d = 0;
    for (let i = 0; i < D; i++) {
      const xi = x[xo + i];
      a += w[w0 + i] * xi;
      b += w[w1 + i] * xi;
      c += w[w2 + i] * xi;
      d += w[w3 + i] * xi;
    }
    out[oo + o] = a;
    out[oo + o + 1] = b;
    out[oo + o + 2] = c;
    out[oo + o + 3] = d;
  }
  for (; o < O; o++) {
    const wo = o * D;
    let a = 0;
    for (let i = 0; i < D; i++) a += w[wo + i] * x[xo + i];
    out[oo + o] = a;
  }
}

/** Gemma RMSNorm over rows of length `dim`: out = x · rsqrt(mean(x²) + eps) · (1 + w). out may alias x. The native addon's where built (the same bits). */
export function rmsNorm(out: Float32Array, x: Float32Array, w: Float32Array, rows: number, dim: number, eps: number): void {
  if (native) return native.rmsNorm(out, x, w, rows, dim, eps);
  rmsNormJs(out, x, w, rows, dim, eps);
}

export function rmsNormJs(out: Float32Array, x: Float32Array, w: Float32Array, rows: number, dim: number, eps: number): void {
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

/** float32(gelu_tanh(g)), the activation both GeGLU variants use. */
function geluTanh(g: number): number {
  return Math.fround(0.5 * g * (1 + Math.tanh(GELU_K * (g + 0.044715 * g * g * g))));
}

/** gate[i] = gelu_tanh(gate[i]) · up[i] (GeGLU), in place on gate. */
export function geglu(gate: Float32Array, up: Float32Array, len: number): void {
  for (let i = 0; i < len; i++) gate[i] = geluTanh(gate[i]) * up[i];
}

let bf16GeluTable: Float32Array | null = null;

/**
 * geglu for a gate that holds BF16 values (bf16 mode stores the gate projection before the
 * activation): the activation of each of the 65,536 BF16 bit patterns is computed once, by the same
 * geluTanh, into a table (256 KiB), so the result is identical to geglu without a tanh per element.
 * Values that are not BF16 would index the wrong entry: only call it on BF16-rounded gates.
 */
export function gegluBf16(gate: Float32Array, up: Float32Array, len: number): void {
  let table = bf16GeluTable;
  if (!table) {
    const bits = new Uint32Array(65536);
    for (let b = 0; b < 65536; b++) bits[b] = b << 16;
    const values = new Float32Array(bits.buffer);
    table = bf16GeluTable = Float32Array.from(values, geluTanh);
  }
  const g = new Uint32Array(gate.buffer, gate.byteOffset, len);
  for (let i = 0; i < len; i++) gate[i] = table[g[i] >>> 16] * up[i];
}

/** x[i] += y[i] (the residual add). */
export function addInPlace(x: Float32Array, y: Float32Array, len: number): void {
  for (let i = 0; i < len; i++) x[i] += y[i];
}

/** logits = c · tanh(logits / c) (Gemma 2's final soft-cap). */
export function softcap(x: Float32Array, cap: number, len: number): void {
  for (let i = 0; i < len; i++) x[i] = cap * Math.tanh(x[i] / cap);
}

/**
 * Round the first len values to BF16 in place (where a BF16 serving stack stores a tensor): the same
 * RNE as numerics/bf16.ts roundToBf16, done on the float32 bits through a Uint32 view of the same
 * memory (an integer add and mask per element; NaN → the canonical quiet NaN). Long arrays go to the
 * native addon where it is built (the same bits, vectorized).
 */
export function roundBf16(x: Float32Array, len: number): void {
  if (len >= 64 && native) return native.roundBf16(x, len);
  roundBf16Js(x, len);
}

export function roundBf16Js(x: Float32Array, len: number): void {
  const u = new Uint32Array(x.buffer, x.byteOffset, len);
  for (let i = 0; i < len; i++) {
    const b = u[i];
    u[i] = (b & 0x7fffffff) > 0x7f800000 ? 0x7fc00000 : ((b + ((b >>> 16) & 1) + 0x7fff) & 0xffff0000) >>> 0;
  }
}
