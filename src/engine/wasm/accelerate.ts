/**
 * WebAssembly SIMD matmul for the engine (matvec-module.ts): the model's weights are copied once
 * into one WebAssembly.Memory (which never grows, so the Float32Array views stay valid); the rows'
 * x are copied into a scratch area, the kernel runs, the outputs are copied back. ~2.5× a JS matvec.
 * Several rows (a batched step, a prefill) run through matmul-tiles-module.ts: tiles of 4 rows ×
 * 2 outputs over blocks of OUTPUT_BLOCK outputs, so each weight row is read from memory once per
 * CHUNK rows and then reused from cache (measured ~1.7× per row over matvec at 16 rows on the
 * model's shapes). Widths that are not a multiple of 16, and the batch-variant split-K, use
 * matmul-rows-module.ts (two rows per weight pass). Every kernel is bit-identical, row by row, to the
 * one-row kernel: accumulation is float32 (four f32x4 partial sums) instead of the JS kernel's
 * float64, with one fixed order for every row whatever else is in the batch: batch-invariant.
 */
import { runBufferWidths, type Model, type RunBuffers, type ScratchArena } from '../model.js';
import { matmul as jsMatmul, type MatmulFn } from '../ops.js';
import type { LayerWeights, MtpWeights, Weights } from '../weights.js';
import { matmulRowsModuleBytes } from './matmul-rows-module.js';
import { matmulTilesModuleBytes, MAX_TILE_ROWS, TILE_SCRATCH_FLOATS } from './matmul-tiles-module.js';
import { matvecModuleBytes } from './matvec-module.js';

type MatvecExport = (w: number, x: number, out: number, D: number, O: number) => void;
/** rowsR(w, x, out, len, O, ldw, ldx): R rows at once, each bit-identical to matvec (matmul-rows-module.ts). */
type RowsExport = (w: number, x: number, out: number, len: number, O: number, ldw: number, ldx: number) => void;
/** tilesR(w, x, out, D, ldo, o0, o1, scr): R rows × outputs [o0, o1) (matmul-tiles-module.ts). */
type TilesExport = (w: number, x: number, out: number, D: number, ldo: number, o0: number, o1: number, scr: number) => void;
/** Rows per block of the rows kernel: two rows share each weight load (more rows spill SIMD registers). */
const BLOCK = 2;
/** Rows copied into the kernel's scratch at once: each weight row is read from memory once per CHUNK rows. */
const CHUNK = 16;
/** Rows of the forward scratch kept in the kernels' memory (a decode step of 16 sequences with drafts fits; bigger prefills copy). */
const ARENA_ROWS = 64;
/** Outputs per pass of the tiled kernel: their weight rows (≤ 64 · 3 KiB) stay in cache across the chunk's row tiles. */
const OUTPUT_BLOCK = 64;

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

interface SimdModules {
  matvec: object;
  rows: object;
  tiles: object;
}
let moduleCache: SimdModules | null | undefined;

/** The compiled modules, or null where WebAssembly SIMD is unavailable. */
function simdModule(): SimdModules | null {
  if (moduleCache === undefined) {
    const bytes = { matvec: matvecModuleBytes(), rows: matmulRowsModuleBytes(), tiles: matmulTilesModuleBytes() };
    const valid = wasm && Object.values(bytes).every((b) => wasm.validate(b));
    moduleCache = valid ? { matvec: new wasm.Module(bytes.matvec), rows: new wasm.Module(bytes.rows), tiles: new wasm.Module(bytes.tiles) } : null;
  }
  return moduleCache;
}

export function wasmSimdAvailable(): boolean {
  return simdModule() !== null;
}

export interface AcceleratedModel {
  /** The same model with every weight array living in the kernel's memory. */
  model: Model;
  /** One row: matvec; several: weight-reusing tiles (or blocks of two), each row bit-identical to a one-row call. */
  matmul: MatmulFn;
  partialMatmul: PartialMatmulFn;
  /** Scratch for forwards of up to ARENA_ROWS rows in the kernels' memory (RunState): no copies around the matmuls. */
  arena: ScratchArena;
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
  const scratchFloats = 2 * CHUNK * align(maxDim) + TILE_SCRATCH_FLOATS;
  const widths = Object.entries(runBufferWidths(c)) as [keyof RunBuffers, number][];
  const arenaFloats = widths.reduce((n, [, w]) => n + align(ARENA_ROWS * w), 0);
  const floats = arrays.reduce((n, a) => n + align(a.length), 0) + scratchFloats + arenaFloats;
  const memory = new wasm.Memory({ initial: Math.ceil((floats * 4) / 65536) + 1 });
  const matvec = new wasm.Instance(mod.matvec, { env: { memory } }).exports.matvec as MatvecExport;
  const rowsExports = new wasm.Instance(mod.rows, { env: { memory } }).exports;
  const rows = [1, 2, 3, 4].map((r) => rowsExports[`rows${r}`] as RowsExport);
  const tilesExports = new wasm.Instance(mod.tiles, { env: { memory } }).exports;
  const tiles = Array.from({ length: MAX_TILE_ROWS }, (_, r) => tilesExports[`tiles${r + 1}`] as TilesExport);
  const heap = new Float32Array(memory.buffer);
  let top = 0;
  const place = (a: Float32Array): Float32Array => {
    const view = heap.subarray(top, top + a.length);
    view.set(a);
    top += align(a.length);
    return view;
  };
  const placed = new Map<Float32Array, Float32Array>(arrays.map((a) => [a, place(a)]));
  const xAt = top,
    outAt = xAt + CHUNK * align(maxDim),
    scrAt = outAt + CHUNK * align(maxDim);
  top = scrAt + TILE_SCRATCH_FLOATS;
  const arenaBuffers = Object.fromEntries(widths.map(([k, w]) => [k, place(new Float32Array(ARENA_ROWS * w))])) as unknown as RunBuffers;
  const move = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, placed.get(v as Float32Array) ?? v])) as T;
  const w = model.weights;
  const weights: Weights = {
    ...w,
    embed: placed.get(w.embed)!,
    finalNorm: placed.get(w.finalNorm)!,
    layers: w.layers.map(move),
    mtp: w.mtp ? move(w.mtp) : null,
  };
  // x and out may live in this memory (the arena below): then the kernels read and write them in place
  /** Byte address of rows [c, c + m) of x, copied into the scratch first when x lives elsewhere. */
  const xRows = (x: Float32Array, c: number, m: number, D: number): number => {
    if (x.buffer === memory.buffer) return x.byteOffset + c * D * 4;
    heap.set(x.subarray(c * D, (c + m) * D), xAt);
    return xAt * 4;
  };
  /** Byte address where rows from c of out are written: in place, or the scratch (then copied out by `copyOut`). */
  const outRows = (out: Float32Array, c: number, O: number): number => (out.buffer === memory.buffer ? out.byteOffset + c * O * 4 : outAt * 4);
  const copyOut = (out: Float32Array, c: number, m: number, O: number): void => {
    if (out.buffer !== memory.buffer) out.set(heap.subarray(outAt, outAt + m * O), c * O);
  };
  const matmul: MatmulFn = (out, x, wt, n, D, O) => {
    if (wt.buffer !== memory.buffer || D > maxDim || O > maxDim) return jsMatmul(out, x, wt, n, D, O);
    if (n === 1) {
      matvec(wt.byteOffset, xRows(x, 0, 1, D), outRows(out, 0, O), D, O);
      copyOut(out, 0, 1, O);
      return;
    }
    if (D % 16 === 0) {
      for (let c = 0; c < n; c += CHUNK) {
        const m = Math.min(CHUNK, n - c);
        const xp = xRows(x, c, m, D),
          op = outRows(out, c, O);
        for (let o0 = 0; o0 < O; o0 += OUTPUT_BLOCK) {
          const o1 = Math.min(O, o0 + OUTPUT_BLOCK);
          for (let r = 0; r < m; r += MAX_TILE_ROWS) tiles[Math.min(MAX_TILE_ROWS, m - r) - 1](wt.byteOffset, xp + r * D * 4, op + r * O * 4, D, O, o0, o1, scrAt * 4);
        }
        copyOut(out, c, m, O);
      }
      return;
    }
    for (let r = 0; r < n; r += BLOCK) {
      const R = Math.min(BLOCK, n - r);
      rows[R - 1](wt.byteOffset, xRows(x, r, R, D), outRows(out, r, O), D, O, D, D);
      copyOut(out, r, R, O);
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
  const result = { model: { config: c, weights }, matmul, partialMatmul, arena: { rows: ARENA_ROWS, buffers: arenaBuffers } };
  accelerated.set(model, result);
  return result;
}
