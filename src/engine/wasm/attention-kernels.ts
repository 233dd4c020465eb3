/**
 * The attention kernels of attention-module.ts, instantiated once per thread on their own growable
 * WebAssembly.Memory, with the staging the JS side needs: the K and V rows of one KV head over a key
 * range are copied in once (`loadKv`) and every query row and head pair of that KV head runs on them
 * (`dots`, `pvExact`, `pvRounded`); softmax maxima and exponentials stay in JS (Math.exp / `2 **`
 * have no bit-identical WebAssembly counterpart).
 *
 * Why copy instead of keeping the KV caches in WebAssembly memory: the copy is one TypedArray.set per
 * run of adjacent rows (a 16-key page at hd 64 is 4 KiB per head), shared by every row and head pair of
 * the KV head. Measured in the engine (tiny-swa, reference attention, 16 sequences of 12 + 64 tokens,
 * FP8 KV; performance.now around loadKv): loadKv takes ~47 % of the SIMD attention time, but a second,
 * warm loadKv of the same rows right after takes only ~30 % of the first — the rest is the first read of
 * the step's 4–7 MB of K/V values from memory, which a kernel reading the cache in place pays as well.
 * So keeping paged.ts / contiguous.ts in one growable memory per thread (views re-made after every grow,
 * the caches tied to this module) would save at most ~14 % of the attention time.
 *
 * Widening to float64 happens once in loadKv when several passes read each element (spec
 * verification: 8 rows), else inside the kernels' loops (a decode row reads each element once).
 */
import type { KvView } from '../kv-cache/cache.js';
import { attentionModuleBytes } from './attention-module.js';

interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: Record<string, Record<string, unknown>>) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number }) => { buffer: ArrayBuffer; grow(pages: number): number };
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

type Fn = (...args: number[]) => void;

export interface AttentionKernels {
  /**
   * Copies K and V of KV head g at positions lo … hi of `view` (pages of `pageSize` positions) into the kernel memory as float64,
   * multiplied by kScale / vScale (in float64, as the JS kernels do). `passes`: how many (row, head
   * pair) passes will read each element; from WIDEN_FROM_PASSES on they are widened once here, below
   * that kept float32 and widened inside the kernels' loops. Invalidates earlier views of `f64`.
   */
  loadKv(view: KvView, g: number, lo: number, hi: number, pageSize: number, headDim: number, kScale: number, vScale: number, passes: number): void;
  /** The kernel memory as float64 (re-read after loadKv: the memory may have grown). */
  readonly f64: Float64Array;
  /** float64 indices into `f64` of: the query pair [hd × 2], scores / weights [keys × 2], tile corrections [keys × 2], accumulators of lane 0 and 1 [hd each]. */
  readonly at: { q: number; scores: number; corr: number; acc0: number; acc1: number };
  /** scores[i] (both lanes) = q pair · K[first + i], i < n (first: key index from the loaded lo). */
  dots(first: number, n: number): void;
  /** acc lane l [d] = Σ_i scores[i].lane_l · V[first + i][d] (the reference P·V, float64). */
  pvExact(first: number, n: number): void;
  /** The online-softmax P·V with float32 accumulators and per-tile corrections (`tileKeys` in the first tile, then `pageSize`). */
  pvRounded(first: number, n: number, tileKeys: number, pageSize: number): void;
}

/**
 * Widening K/V to float64 up front costs about as much as one pass's in-loop widening saves: measured
 * on 100-key ranges (hd 64), one pass is faster unwidened, eight are ~10 % faster widened.
 */
export const WIDEN_FROM_PASSES = 4;

/**
 * Most K (or V) elements one loadKv takes (keys · head dim): 4 Mi elements keep the kernel memory under
 * ~120 MB (28 bytes per element across its regions); longer ranges (a 65k-token prefill at hd 64) run
 * on the JS loops instead.
 */
export const MAX_KV_ELEMENTS = 1 << 22;

let kernels: AttentionKernels | null | undefined;

/** The kernels of this thread, or null where WebAssembly SIMD is unavailable. */
export function attentionKernels(): AttentionKernels | null {
  if (kernels === undefined) kernels = instantiate();
  return kernels;
}

const align16 = (bytes: number) => Math.ceil(bytes / 16) * 16;

function instantiate(): AttentionKernels | null {
  const bytes = attentionModuleBytes();
  if (!wasm || !wasm.validate(bytes)) return null;
  const memory = new wasm.Memory({ initial: 16 });
  const ex = new wasm.Instance(new wasm.Module(bytes), { env: { memory } }).exports;
  const [widen, dots, pvExact, pvRounded, dots32, pvExact32, pvRounded32] = ['widen', 'dots', 'pvExact', 'pvRounded', 'dots32', 'pvExact32', 'pvRounded32'].map(
    (n) => ex[n] as Fn,
  );
  let f32 = new Float32Array(memory.buffer);
  let f64 = new Float64Array(memory.buffer);
  // byte addresses of the regions, laid out for the current (keys, hd) by `layout`
  let stage = 0, kAt = 0, vAt = 0, k32At = 0, v32At = 0, hd = 0;
  // how the loaded rows are held: widened to f64 (kAt, vAt) or as float32 with their scales (k32At, v32At)
  let widened = true, kScale = 1, vScale = 1;
  const at = { q: 0, scores: 0, corr: 0, acc0: 0, acc1: 0 };

  let capKeys = -1, capDim = -1;
  /**
   * Regions for `keys` keys of head dim `dim` (laid out again, and the memory grown, only when they do
   * not fit the current layout). Slack: the kernels write ≤ 3 elements past a row block and read 1 past.
   */
  const layout = (keys: number, dim: number) => {
    if (dim === capDim && keys <= capKeys) return;
    if (keys * dim > MAX_KV_ELEMENTS) throw new RangeError(`attention kernels: ${keys} keys × ${dim} exceed ${MAX_KV_ELEMENTS} elements`);
    keys = Math.max(keys, Math.min(dim === capDim ? 2 * capKeys : 0, Math.floor(MAX_KV_ELEMENTS / dim)), 64);
    const elems = keys * dim + 4;
    const sizes = [4 * elems, 8 * elems, 8 * elems, 4 * elems, 4 * elems, 16 * dim + 16, 16 * keys + 16, 16 * keys + 16, 8 * dim + 16, 8 * dim + 16];
    const starts: number[] = [];
    let top = 0;
    for (const size of sizes) {
      starts.push(top);
      top += align16(size);
    }
    [stage, kAt, vAt, k32At, v32At] = starts;
    [at.q, at.scores, at.corr, at.acc0, at.acc1] = starts.slice(5).map((b) => b >> 3);
    if (top > memory.buffer.byteLength) {
      memory.grow(Math.ceil((top - memory.buffer.byteLength) / 65536));
      f32 = new Float32Array(memory.buffer);
      f64 = new Float64Array(memory.buffer);
    }
    capKeys = keys;
    capDim = hd = dim;
  };

  /**
   * Copies the rows [lo, hi] of one head (hd floats each) to byte `toByte` of the memory. Within a page
   * offsets are affine in the position (KvView contract), so two offset look-ups per page tell whether
   * the page's rows are adjacent (one TypedArray.set, merged with the previous page when that ends
   * where this one starts) or strided (one set per row, e.g. an NHD dump).
   */
  const stageRows = (view: KvView, ofValues: boolean, g: number, lo: number, hi: number, pageSize: number, toByte: number) => {
    const from = view.values;
    let to = toByte / 4;
    let runStart = 0,
      runLen = 0; // rows of the pending adjacent run
    for (let j0 = lo; j0 <= hi; ) {
      const j1 = Math.min(hi, (Math.floor(j0 / pageSize) + 1) * pageSize - 1);
      const o0 = ofValues ? view.valueOffset(j0, g) : view.keyOffset(j0, g);
      const stride = j1 > j0 ? (ofValues ? view.valueOffset(j0 + 1, g) : view.keyOffset(j0 + 1, g)) - o0 : hd;
      if (stride === hd) {
        if (runLen > 0 && o0 !== runStart + runLen * hd) {
          f32.set(from.subarray(runStart, runStart + runLen * hd), to);
          to += runLen * hd;
          runLen = 0;
        }
        if (runLen === 0) runStart = o0;
        runLen += j1 - j0 + 1;
      } else {
        if (runLen > 0) f32.set(from.subarray(runStart, runStart + runLen * hd), to);
        to += runLen * hd;
        runLen = 0;
        for (let j = j0; j <= j1; j++, to += hd) f32.set(from.subarray(o0 + (j - j0) * stride, o0 + (j - j0) * stride + hd), to);
      }
      j0 = j1 + 1;
    }
    if (runLen > 0) f32.set(from.subarray(runStart, runStart + runLen * hd), to);
  };

  return {
    get f64() {
      return f64;
    },
    at,
    loadKv(view, g, lo, hi, pageSize, dim, ks, vs, passes) {
      const keys = hi - lo + 1;
      layout(keys, dim);
      widened = passes >= WIDEN_FROM_PASSES;
      kScale = ks;
      vScale = vs;
      if (widened) {
        stageRows(view, false, g, lo, hi, pageSize, stage);
        widen(stage, kAt, keys * dim, ks);
        stageRows(view, true, g, lo, hi, pageSize, stage);
        widen(stage, vAt, keys * dim, vs);
      } else {
        stageRows(view, false, g, lo, hi, pageSize, k32At);
        stageRows(view, true, g, lo, hi, pageSize, v32At);
      }
    },
    dots(first, n) {
      if (widened) dots(at.q * 8, kAt + first * hd * 8, at.scores * 8, n, hd);
      else dots32(at.q * 8, k32At + first * hd * 4, at.scores * 8, n, hd, kScale);
    },
    pvExact(first, n) {
      if (widened) pvExact(at.scores * 8, vAt + first * hd * 8, at.acc0 * 8, at.acc1 * 8, n, hd);
      else pvExact32(at.scores * 8, v32At + first * hd * 4, at.acc0 * 8, at.acc1 * 8, n, hd, vScale);
    },
    pvRounded(first, n, tileKeys, pageSize) {
      if (widened) pvRounded(at.scores * 8, at.corr * 8, vAt + first * hd * 8, at.acc0 * 8, at.acc1 * 8, n, tileKeys, pageSize, hd);
      else pvRounded32(at.scores * 8, at.corr * 8, v32At + first * hd * 4, at.acc0 * 8, at.acc1 * 8, n, tileKeys, pageSize, hd, vScale);
    },
  };
}
