/**
 * WebAssembly SIMD matmul for the engine (matvec-module.ts): the model's weights are copied once
 * into one WebAssembly.Memory (which never grows, so the Float32Array views stay valid); each row's
 * x is copied into a scratch area, the kernel runs, the outputs are copied back. ~2.5× a JS matvec.
 * Several rows run two at a time (matmul-rows-module.ts: one weight load for both rows, ~1.5× per
 * row), each bit-identical to the one-row kernel.
 * Accumulation is float32 (four f32x4 partial sums) instead of the JS kernel's float64, with one
 * fixed order for every row: still deterministic and batch-invariant.
 */
import type { Model } from '../model.js';
import { matmul as jsMatmul, type MatmulFn } from '../ops.js';
import type { LayerWeights, MtpWeights, Weights } from '../weights.js';
import { matmulRowsModuleBytes } from './matmul-rows-module.js';
import { matvecModuleBytes } from './matvec-module.js';

type MatvecExport = (w: number, x: number, out: number, D: number, O: number) => void;
/** rowsR(w, x, out, len, O, ldw, ldx): R rows at once, each bit-identical to matvec (matmul-rows-module.ts). */
type RowsExport = (w: number, x: number, out: number, len: number, O: number, ldw: number, ldx: number) => void;
/** Rows per block: two rows share each weight load (measured fastest; more rows spill SIMD registers). */
const BLOCK = 2;

/**
 * A matmul over the column range [c0, c1) only: out[n, O] = x[n, c0:c1] · w[O, c0:c1]ᵀ, each output in
 * the kernel's fixed order. Building block for the batch-variant split-K matmul (batch-variant.ts).
 */
export type PartialMatmulFn = (out: Float32Array, x: Float32Array, w: Float32Array, n: number, D: number, O: number, c0: number, c1: number) => void;

/** The part of the WebAssembly JS API used here (the project's TS lib settings do not declare it). */
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: Record<string, Record<string, unknown>>) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number }) => { buffer: ArrayBuffer };
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

let moduleCache: { matvec: object; rows: object } | null | undefined;

/** The compiled modules, or null where WebAssembly SIMD is unavailable. */
function simdModule(): { matvec: object; rows: object } | null {
  if (moduleCache === undefined) {
    const bytes = matvecModuleBytes();
    const rows = matmulRowsModuleBytes();
    moduleCache = wasm && wasm.validate(bytes) && wasm.validate(rows) ? { matvec: new wasm.Module(bytes), rows: new wasm.Module(rows) } : null;
  }
  return moduleCache;
}

export function wasmSimdAvailable(): boolean {
  return simdModule() !== null;
}

export interface AcceleratedModel {
  /** The same model with every weight array living in the kernel's memory. */
  model: Model;
  /** Rows in blocks of two (one weight pass per block), each row bit-identical to a one-row call. */
  matmul: MatmulFn;
  partialMatmul: PartialMatmulFn;
}

const accelerated = new WeakMap<Model, AcceleratedModel>();

function weightArrays(w: Weights): Float32Array[] {
  const layer = (l: LayerWeights) => Object.values(l) as Float32Array[];
  const mtp = (m: MtpWeights | null) => (m ? (Object.values(m) as Float32Array[]) : []);
  return [w.embed, w.finalNorm, ...w.layers.flatMap(layer), ...mtp(w.mtp)];
}

/** Copies the weights into WebAssembly memory once per model (cached); null without SIMD support. */
export function accelerate(model: Model): AcceleratedModel | null {
  const cached = accelerated.get(model);
  if (cached) return cached;
  const mod = simdModule();
  if (!mod || !wasm) return null;
  const c = model.config;
  const maxDim = Math.max(c.hiddenSize * 2, c.intermediateSize, c.numHeads * c.headDim, c.vocabSize);
  const arrays = weightArrays(model.weights);
  const align = (n: number) => Math.ceil(n / 4) * 4; // 16-byte aligned starts (4 floats)
  const floats = arrays.reduce((n, a) => n + align(a.length), 0) + 2 * BLOCK * align(maxDim);
  const memory = new wasm.Memory({ initial: Math.ceil((floats * 4) / 65536) + 1 });
  const matvec = new wasm.Instance(mod.matvec, { env: { memory } }).exports.matvec as MatvecExport;
  const rowsExports = new wasm.Instance(mod.rows, { env: { memory } }).exports;
  const rows = [1, 2, 3, 4].map((r) => rowsExports[`rows${r}`] as RowsExport);
  const heap = new Float32Array(memory.buffer);
  let top = 0;
  const place = (a: Float32Array): Float32Array => {
    const view = heap.subarray(top, top + a.length);
    view.set(a);
    top += align(a.length);
    return view;
  };
  const placed = new Map<Float32Array, Float32Array>(arrays.map((a) => [a, place(a)]));
  const xAt = top, outAt = top + BLOCK * align(maxDim);
  const move = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, placed.get(v as Float32Array) ?? v])) as T;
  const w = model.weights;
  const weights: Weights = {
    ...w,
    embed: placed.get(w.embed)!,
    finalNorm: placed.get(w.finalNorm)!,
    layers: w.layers.map(move),
    mtp: w.mtp ? move(w.mtp) : null,
  };
  const matmul: MatmulFn = (out, x, wt, n, D, O) => {
    if (wt.buffer !== memory.buffer || D > maxDim || O > maxDim) return jsMatmul(out, x, wt, n, D, O);
    if (n === 1) {
      heap.set(x.subarray(0, D), xAt);
      matvec(wt.byteOffset, xAt * 4, outAt * 4, D, O);
      out.set(heap.subarray(outAt, outAt + O));
      return;
    }
    for (let r = 0; r < n; r += BLOCK) {
      const R = Math.min(BLOCK, n - r);
      heap.set(x.subarray(r * D, (r + R) * D), xAt);
      rows[R - 1](wt.byteOffset, xAt * 4, outAt * 4, D, O, D, D);
      out.set(heap.subarray(outAt, outAt + R * O), r * O);
    }
  };
  const partialMatmul: PartialMatmulFn = (out, x, wt, n, D, O, c0, c1) => {
    if (wt.buffer !== memory.buffer || D > maxDim || O > maxDim) throw new RangeError('partialMatmul: weights outside the kernel memory');
    for (let r = 0; r < n; r += BLOCK) {
      const R = Math.min(BLOCK, n - r);
      heap.set(x.subarray(r * D, (r + R) * D), xAt);
      rows[R - 1](wt.byteOffset + c0 * 4, (xAt + c0) * 4, outAt * 4, c1 - c0, O, D, D);
      out.set(heap.subarray(outAt, outAt + R * O), r * O);
    }
  };
  const result = { model: { config: c, weights }, matmul, partialMatmul };
  accelerated.set(model, result);
  return result;
}
