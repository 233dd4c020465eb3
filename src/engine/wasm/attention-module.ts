/**
 * WebAssembly SIMD attention kernels, assembled byte by byte like the matmul modules. Lanes are two
 * query heads (f64x2: lane 0 head h, lane 1 head h + 1, the same KV head), so each head keeps exactly
 * the float64 operation sequence of the JS kernels (attention/reference.ts, online-softmax.ts): there is
 * no fused multiply-add in standard SIMD, f64x2.mul and f64x2.add round like JS `*` and `+`, and
 * f32x4.demote_f64x2_zero rounds like Math.fround. All addresses are bytes.
 *
 *   widen(src, dst, n, scale)       dst[i] = f64(src[i]) · scale, i < n (f32 → f64; may write up to 3 past n)
 *   dots(qp, k, out, n, hd)         out[j] = Σ_d qp[d] · k[j·hd + d] over d in order, per lane; j < n
 *                                   (qp: hd f64x2 [q_h[d], q_h+1[d]]; k: n rows of hd f64, splat into both lanes)
 *   pvExact(p, v, acc0, acc1, n, hd)
 *                                   acc_l[d] = Σ_j p[j].lane_l · v[j·hd + d] in order of j, from 0 (reference P·V)
 *   pvRounded(p, corr, v, acc0, acc1, n, first, P, hd)
 *                                   the online-softmax P·V with a float32 accumulator: per tile (the first has
 *                                   `first` keys, then P each) acc = f32(acc · corr[tile]), then per key
 *                                   acc = f32(acc + p[j] · v[j]) — the product exact in f64, the sum rounded
 *                                   to f64 then to f32, as `Float32Array[d] += p * x` does in JS.
 *
 * dots takes four keys at a time (four independent accumulator chains instead of the JS loop's two);
 * the P·V kernels hold 8 head dims × 2 heads in registers across all keys, then 2 dims at a time for
 * the rest (an odd hd computes one extra lane that is written to the accumulator's slack and ignored).
 */
import { F64, I32, V128, add, and, block, br, brIf, geU, get, i32c, loop, mul, set, simd, typedModuleBytes, uleb, v128load, vec } from './assembler.js';

const v128store = (offset: number) => simd(0x0b, 4, ...uleb(offset));
const load64Splat = (offset: number) => simd(0x0a, 3, ...uleb(offset));
const load64Zero = (offset: number) => simd(0x5d, 3, ...uleb(offset));
const load32Splat = (offset: number) => simd(0x09, 2, ...uleb(offset));
const f64x2splat = simd(0x14),
  f64x2add = simd(0xf0),
  f64x2mul = simd(0xf2),
  f64x2promoteLow = simd(0x5f),
  f32x4demoteZero = simd(0x5e);
const ltU = [0x49],
  gtU = [0x4b],
  shrU = [0x76],
  sub = [0x6b],
  select = [0x1b];
const v128zero = simd(12, ...new Array(16).fill(0));
const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const bump = (p: number, by: number) => [...get(p), ...i32c(by), ...add, ...set(p)];
const bumpBy = (p: number, local: number) => [...get(p), ...get(local), ...add, ...set(p)];
/** A loop that runs `body` while `cond` (i32 code) is false… i.e. exits when `exitIf` is true. */
const whileNot = (exitIf: number[], body: number[]) => block(loop([...exitIf, ...brIf(1), ...body, ...br(0)]));

/** widen: params 0 src, 1 dst, 2 n, 3 scale (f64); locals 4 end, 5 sv. Four elements per pass. */
function widenCode(): number[] {
  const [SRC, DST, N, SCALE, END, SV] = [0, 1, 2, 3, 4, 5];
  const half = (off: number) => [...get(DST), ...get(SRC), ...load64Zero(off * 8), ...f64x2promoteLow, ...get(SV), ...f64x2mul, ...v128store(off * 16)];
  return [
    ...vec([
      [1, I32],
      [1, V128],
    ]),
    ...get(SCALE),
    ...f64x2splat,
    ...set(SV),
    ...get(DST),
    ...get(N),
    ...i32c(8),
    ...mul,
    ...add,
    ...set(END),
    ...whileNot([...get(DST), ...get(END), ...geU], [...half(0), ...half(1), ...bump(SRC, 16), ...bump(DST, 32)]),
    0x0b,
  ];
}

/**
 * dots: params 0 qp, 1 k, 2 out, 3 n, 4 hd; with `fromF32` (dots32) K rows are float32 and a 6th
 * parameter, the scale (f64), widens each element in the loop: f64(k) · scale.
 */
function dotsCode(fromF32: boolean): number[] {
  const [QP, K, OUT, N, HD, SCALE] = [0, 1, 2, 3, 4, 5];
  const l0 = fromF32 ? 6 : 5;
  const [J, ROW, D, QPP, DEND, KB] = range(6).map((i) => l0 + i); // KB … KB + 3: the R keys' row addresses
  const [QV, ACC, SV] = [l0 + 9, l0 + 10, l0 + 14]; // v128: ACC … ACC + 3
  const elem = fromF32 ? 4 : 8;
  /** The K element at row i, dim d + u, in both lanes. */
  const kSplat = (i: number, u: number) =>
    fromF32
      ? [...get(KB + i), ...get(D), ...add, ...load32Splat(4 * u), ...f64x2promoteLow, ...get(SV), ...f64x2mul]
      : [...get(KB + i), ...get(D), ...add, ...load64Splat(8 * u)];
  /** R keys starting at j: their dot products, stored to out[j … j + R). */
  const keys = (R: number) => {
    const step = (u: number) => [
      ...get(QPP),
      ...v128load(16 * u),
      ...set(QV),
      ...range(R).flatMap((i) => [...get(ACC + i), ...get(QV), ...kSplat(i, u), ...f64x2mul, ...f64x2add, ...set(ACC + i)]),
    ];
    return [
      ...range(R).flatMap((i) => [...v128zero, ...set(ACC + i)]),
      ...range(R).flatMap((i) => [...get(K), ...get(J), ...i32c(i), ...add, ...get(ROW), ...mul, ...add, ...set(KB + i)]),
      ...i32c(0),
      ...set(D),
      ...get(QP),
      ...set(QPP),
      // two dims per pass while d < hd & ~1, then the odd last dim
      ...whileNot([...get(D), ...get(DEND), ...geU], [...step(0), ...step(1), ...bump(D, 2 * elem), ...bump(QPP, 32)]),
      ...block([...get(D), ...get(ROW), ...geU, ...brIf(0), ...step(0)]),
      ...range(R).flatMap((i) => [...get(OUT), ...get(J), ...i32c(i), ...add, ...i32c(16), ...mul, ...add, ...get(ACC + i), ...v128store(0)]),
    ];
  };
  return [
    ...vec([
      [9, I32],
      [fromF32 ? 6 : 5, V128],
    ]),
    ...(fromF32 ? [...get(SCALE), ...f64x2splat, ...set(SV)] : []),
    ...get(HD),
    ...i32c(elem),
    ...mul,
    ...set(ROW),
    ...get(ROW),
    ...i32c(-2 * elem),
    ...and,
    ...set(DEND),
    ...i32c(0),
    ...set(J),
    ...whileNot([...get(N), ...get(J), ...sub, ...i32c(4), ...ltU], [...keys(4), ...bump(J, 4)]),
    ...whileNot([...get(J), ...get(N), ...geU], [...keys(1), ...bump(J, 1)]),
    0x0b,
  ];
}

/**
 * The two P·V kernels share their shape: d-blocks of 8 dims (4 vectors per head), then of 2 dims; per
 * block the accumulators stay in registers over every key. `rounded` adds the online-softmax tiles.
 * params pvExact: 0 p, 1 v, 2 acc0, 3 acc1, 4 n, 5 hd; pvRounded: 0 p, 1 corr, 2 v, 3 acc0, 4 acc1, 5 n, 6 first, 7 P, 8 hd.
 */
function pvCode(rounded: boolean, fromF32: boolean): number[] {
  const [P, CORR, V, ACC0, ACC1, N, FIRST, PAGE, HD] = rounded ? [0, 1, 2, 3, 4, 5, 6, 7, 8] : [0, -1, 1, 2, 3, 4, -1, -1, 5];
  const SCALE = rounded ? 9 : 6; // f64, pv*32 only
  const base = SCALE + (fromF32 ? 1 : 0);
  // ROW: bytes per V row; D0: the block's first dim in f64 bytes (accumulator offset), DEND = hd · 8
  const [ROW, D0, VP, PP, J, END, CP, DEND] = range(8).map((i) => base + i); // i32
  const vbase = base + 8;
  const [P0, P1, VV, SV] = [vbase, vbase + 1, vbase + 2, vbase + 11]; // v128
  const A = (head: number, b: number) => vbase + 3 + head * 4 + b; // v128 accumulators
  const elem = fromF32 ? 4 : 8;
  /** V elements d0 + 2b, d0 + 2b + 1 of the current key as f64x2 (times the scale from float32 rows). */
  const vPair = (b: number) =>
    fromF32 ? [...get(VP), ...load64Zero(8 * b), ...f64x2promoteLow, ...get(SV), ...f64x2mul] : [...get(VP), ...v128load(16 * b)];
  /** f32(x) for both lanes, back in f64 lanes (Math.fround on each head's value). */
  const roundF32 = [...f32x4demoteZero, ...f64x2promoteLow];
  const block_ = (B: number) => {
    const accs = range(2).flatMap((h) => range(B).map((b) => [h, b] as const));
    const key = [
      ...get(PP),
      ...load64Splat(0),
      ...set(P0),
      ...get(PP),
      ...load64Splat(8),
      ...set(P1),
      ...range(B).flatMap((b) => [
        ...vPair(b),
        ...set(VV),
        ...range(2).flatMap((h) => [...get(A(h, b)), ...get(h ? P1 : P0), ...get(VV), ...f64x2mul, ...f64x2add, ...(rounded ? roundF32 : []), ...set(A(h, b))]),
      ]),
      ...bump(PP, 16),
      ...bumpBy(VP, ROW),
      ...bump(J, 1),
    ];
    const keysUntil = (endLocal: number) => whileNot([...get(J), ...get(endLocal), ...geU], key);
    const tiles = () => [
      ...get(FIRST),
      ...set(END),
      ...get(CORR),
      ...set(CP),
      ...whileNot(
        [...get(J), ...get(N), ...geU],
        [
          ...get(CP),
          ...load64Splat(0),
          ...set(P0),
          ...get(CP),
          ...load64Splat(8),
          ...set(P1),
          ...accs.flatMap(([h, b]) => [...get(A(h, b)), ...get(h ? P1 : P0), ...f64x2mul, ...roundF32, ...set(A(h, b))]),
          ...bump(CP, 16),
          ...keysUntil(END),
          // next tile: END = min(END + P, n)
          ...get(END),
          ...get(PAGE),
          ...add,
          ...set(END),
          ...get(N),
          ...get(END),
          ...get(END),
          ...get(N),
          ...gtU,
          ...select,
          ...set(END),
        ],
      ),
    ];
    return [
      ...accs.flatMap(([h, b]) => [...v128zero, ...set(A(h, b))]),
      ...get(V),
      ...get(D0),
      ...(fromF32 ? [...i32c(1), ...shrU] : []),
      ...add,
      ...set(VP),
      ...get(P),
      ...set(PP),
      ...i32c(0),
      ...set(J),
      ...(rounded ? tiles() : [...get(N), ...set(END), ...keysUntil(END)]),
      ...accs.flatMap(([h, b]) => [...get(h ? ACC1 : ACC0), ...get(D0), ...add, ...get(A(h, b)), ...v128store(16 * b)]),
      ...bump(D0, 16 * B),
    ];
  };
  return [
    ...vec([
      [8, I32],
      [fromF32 ? 12 : 11, V128],
    ]),
    ...(fromF32 ? [...get(SCALE), ...f64x2splat, ...set(SV)] : []),
    ...get(HD),
    ...i32c(elem),
    ...mul,
    ...set(ROW),
    ...i32c(0),
    ...set(D0),
    ...get(HD),
    ...i32c(8),
    ...mul,
    ...set(DEND),
    ...whileNot([...get(DEND), ...get(D0), ...sub, ...i32c(64), ...ltU], block_(4)),
    ...whileNot([...get(D0), ...get(DEND), ...geU], block_(1)),
    0x0b,
  ];
}

/**
 * The module's bytes: imports env.memory, exports widen; dots, pvExact, pvRounded on float64 rows
 * (widened first); dots32, pvExact32, pvRounded32 on float32 rows with a trailing f64 scale.
 */
export function attentionModuleBytes(): Uint8Array {
  const i32 = (n: number) => new Array<number>(n).fill(I32);
  return typedModuleBytes([
    { name: 'widen', params: [...i32(3), F64], code: widenCode() },
    { name: 'dots', params: i32(5), code: dotsCode(false) },
    { name: 'pvExact', params: i32(6), code: pvCode(false, false) },
    { name: 'pvRounded', params: i32(9), code: pvCode(true, false) },
    { name: 'dots32', params: [...i32(5), F64], code: dotsCode(true) },
    { name: 'pvExact32', params: [...i32(6), F64], code: pvCode(false, true) },
    { name: 'pvRounded32', params: [...i32(9), F64], code: pvCode(true, true) },
  ]);
}
