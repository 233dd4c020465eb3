/**
 * Which matmul kernels a forward uses — one choice per engine, fastest first where available:
 *   'native'    the C addon (native.ts; AVX-512 or AVX2), BF16 weights read as BF16
 *   'wasm-simd' WebAssembly SIMD (wasm/accelerate.ts), the weights copied into its memory
 *   'js'        float64 accumulation (ops.ts matmul), the exact mode's and the checked reference path
 * 'native' and 'wasm-simd' give the same bits output by output (float32, one fixed order); 'js' is
 * more exact (float64) and gives the same greedy tokens on the trained model (tested).
 */
import { batchVariantMatmul, jsPartialMatmul } from './batch-variant.js';
import type { Model, ScratchArena } from './model.js';
import { nativeKernels, type NativeKernels } from './native.js';
import { matmul as jsMatmul, type MatmulFn } from './ops.js';
import { accelerate, wasmSimdAvailable } from './wasm/accelerate.js';
import type { Weights } from './weights.js';

export type KernelPath = 'native' | 'wasm-simd' | 'js';

/** The kernel paths this process can run, fastest first ('js' always). */
export function availableKernels(): KernelPath[] {
  return [...(nativeKernels() ? (['native'] as const) : []), ...(wasmSimdAvailable() ? (['wasm-simd'] as const) : []), 'js'];
}

export interface ModelKernels {
  path: KernelPath;
  /** The model as the kernels read it (for 'wasm-simd', every weight array lives in its memory). */
  model: Model;
  matmul: MatmulFn;
  /** Scratch for the forward in the kernels' memory, or null (plain arrays). */
  arena: ScratchArena | null;
}

/** Models whose BF16 weight copies this thread's addon holds. */
const registered = new WeakSet<Model>();

/**
 * Gives the addon a BF16 copy of every matmul weight of `model` whose values are all BF16 (a BF16
 * checkpoint's are): its matmul then reads half the bytes (exact: the copy widens back by a shift).
 */
function registerBf16Weights(native: NativeKernels, model: Model): void {
  if (registered.has(model)) return;
  registered.add(model);
  const w: Weights = model.weights;
  const linear = [w.embed, ...w.layers.flatMap((l) => [l.wq, l.wk, l.wv, l.wo, l.wGate, l.wUp, l.wDown]), ...(w.mtp ? [w.mtp.ehProj, w.mtp.wGate, w.mtp.wUp, w.mtp.wDown] : [])];
  for (const a of linear) {
    const bits = new Uint32Array(a.buffer, a.byteOffset, a.length);
    const high = new Uint16Array(a.length);
    let exact = true;
    for (let i = 0; i < bits.length && exact; i++) {
      exact = (bits[i] & 0xffff) === 0;
      high[i] = bits[i] >>> 16;
    }
    if (exact) native.setBf16(a, high); // else not BF16 values: the kernel reads the float32s
  }
}

/**
 * The kernels for `model`: `want` if this process has it, else the next one available. Batch-variant
 * numerics need the split-K partial matmul, which only 'wasm-simd' and 'js' have.
 */
export function modelKernels(model: Model, want: KernelPath | undefined, batchVariant: boolean): ModelKernels {
  const available = availableKernels().filter((p) => !batchVariant || p !== 'native');
  const order: KernelPath[] = ['native', 'wasm-simd', 'js'];
  const path = available.find((p) => order.indexOf(p) >= order.indexOf(want ?? available[0]))!;
  if (path === 'native') {
    const native = nativeKernels()!;
    registerBf16Weights(native, model);
    return { path, model, matmul: native.matmul, arena: null };
  }
  const fast = path === 'wasm-simd' ? accelerate(model) : null;
  if (fast) return { path, model: fast.model, matmul: batchVariant ? batchVariantMatmul(fast.matmul, fast.partialMatmul) : fast.matmul, arena: fast.arena };
  return { path: 'js', model, matmul: batchVariant ? batchVariantMatmul(jsMatmul, jsPartialMatmul) : jsMatmul, arena: null };
}
