/**
 * A register-tiled WebAssembly SIMD matmul for batched steps, assembled byte by byte like the others:
 *
 *   tilesR(w, x, out, D, ldo, o0, o1, scr)     R = 1 … 4 rows, D a multiple of 16
 *     out[r·ldo + o] = Σ_{i < D} w[o·D + i] · x[r·D + i]     for r < R, o0 ≤ o < o1   (byte addresses)
 *
 * Why: matvec-module.ts loads one weight vector and one x vector per multiply; this kernel computes a
 * tile of R rows × 2 outputs at once, so each weight vector is loaded once for R rows and each x vector
 * once for 2 outputs (6 loads per 8 multiply-adds instead of 16), and the 8 independent accumulator
 * chains keep both SIMD adders busy.
 *
 * Bit-identical to matvec, output by output: matvec keeps four f32x4 accumulators a_q, q = 0 … 3, and
 * adds chunk j's floats 16j + 4q … 16j + 4q + 3 into a_q, in order of j. The a_q are independent, so
 * this kernel computes them one after the other ("planes": plane q reads floats 16j + 4q … of every
 * chunk) with the same adds in the same order, parks each in `scr`, and then reduces exactly as matvec
 * does: ((a0 + a1) + (a2 + a3)), lanes ((l0 + l1) + (l2 + l3)), + the scalar tail (0.0 here, since
 * D mod 16 = 0; kept because x + 0.0 turns −0 into +0 as matvec does). Products are rounded to float32
 * before each add (no FMA), as in matvec. `scr` needs TILE_SCRATCH_FLOATS floats, 16-byte aligned.
 */

import { I32, V128, moduleBytes, uleb, vec, get, set, i32c, add, mul, geU, simd, v128load, f32x4add, f32x4mul, lane, v128zero, block, loop, brIf, br } from './assembler.js';

const v128store = (offset: number) => simd(0x0b, 4, ...uleb(offset));
const f32store = [0x38, 2, 0],
  f32add = [0x92],
  f32zero = [0x43, 0, 0, 0, 0];
const ltU = [0x49],
  sub = [0x6b];
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Max rows per call: 4 rows × 2 outputs = 8 accumulators (measured fastest; larger tiles spill SIMD registers). */
export const MAX_TILE_ROWS = 4;
/** Floats of the `scr` area a call needs (4 planes × R rows × 2 outputs × 4 lanes). */
export const TILE_SCRATCH_FLOATS = 4 * MAX_TILE_ROWS * 2 * 4;

/** The body of tilesR: params 0 w, 1 x, 2 out, 3 D, 4 ldo, 5 o0, 6 o1, 7 scr. */
function tilesFunction(R: number): number[] {
  const [W, X, OUT, D, LDO, O0, O1, SCR] = [0, 1, 2, 3, 4, 5, 6, 7];
  const o = 8,
    j = 9,
    end = 10,
    wp = (k: number) => 11 + k; // i32: weight row of output o + k
  const xr = (r: number) => 13 + r; // i32: x row r
  const wv = (k: number) => 13 + R + k; // v128
  const xv = 15 + R;
  const acc = (r: number, k: number) => 16 + R + 2 * r + k; // v128
  const locals = vec([
    [5 + R, I32],
    [3 + 2 * R, V128],
  ]);

  /** One R × K tile at output o (K = 1 or 2): four planes, then the fixed reduction. */
  const tile = (K: number) => {
    const scrAt = (q: number, r: number, k: number) => ((q * R + r) * 2 + k) * 16;
    const plane = (q: number) => [
      ...range(R).flatMap((r) => range(K).flatMap((k) => [...v128zero, ...set(acc(r, k))])),
      ...i32c(0),
      ...set(j),
      ...block(
        loop([
          ...get(j),
          ...get(end),
          ...geU,
          ...brIf(1),
          ...range(K).flatMap((k) => [...get(wp(k)), ...get(j), ...add, ...v128load(16 * q), ...set(wv(k))]),
          ...range(R).flatMap((r) => [
            ...get(xr(r)),
            ...get(j),
            ...add,
            ...v128load(16 * q),
            ...set(xv),
            ...range(K).flatMap((k) => [...get(acc(r, k)), ...get(wv(k)), ...get(xv), ...f32x4mul, ...f32x4add, ...set(acc(r, k))]),
          ]),
          ...get(j),
          ...i32c(64),
          ...add,
          ...set(j),
          ...br(0),
        ]),
      ),
      ...range(R).flatMap((r) => range(K).flatMap((k) => [...get(SCR), ...get(acc(r, k)), ...v128store(scrAt(q, r, k))])),
    ];
    const reduce = (r: number, k: number) => {
      const s = (q: number) => [...get(SCR), ...v128load(scrAt(q, r, k))];
      return [
        // address out + (r·ldo + o + k)·4
        ...get(OUT),
        ...get(LDO),
        ...i32c(r),
        ...mul,
        ...get(o),
        ...add,
        ...i32c(k),
        ...add,
        ...i32c(4),
        ...mul,
        ...add,
        ...s(0),
        ...s(1),
        ...f32x4add,
        ...s(2),
        ...s(3),
        ...f32x4add,
        ...f32x4add,
        ...set(xv),
        ...get(xv),
        ...lane(0),
        ...get(xv),
        ...lane(1),
        ...f32add,
        ...get(xv),
        ...lane(2),
        ...get(xv),
        ...lane(3),
        ...f32add,
        ...f32add,
        ...f32zero,
        ...f32add,
        ...f32store,
      ];
    };
    return [
      ...range(K).flatMap((k) => [...get(W), ...get(o), ...i32c(k), ...add, ...get(D), ...mul, ...i32c(4), ...mul, ...add, ...set(wp(k))]),
      ...range(4).flatMap(plane),
      ...range(R).flatMap((r) => range(K).flatMap((k) => reduce(r, k))),
    ];
  };

  const body = [
    ...get(D),
    ...i32c(4),
    ...mul,
    ...set(end),
    ...range(R).flatMap((r) => [...get(X), ...get(D), ...i32c(4 * r), ...mul, ...add, ...set(xr(r))]),
    ...get(O0),
    ...set(o),
    // pairs of outputs while o + 2 ≤ o1
    ...block(
      loop([
        ...get(O1),
        ...get(o),
        ...sub,
        ...i32c(2),
        ...ltU,
        ...brIf(1),
        ...tile(2),
        ...get(o),
        ...i32c(2),
        ...add,
        ...set(o),
        ...br(0),
      ]),
    ),
    // the last odd output
    ...block([...get(o), ...get(O1), ...geU, ...brIf(0), ...tile(1)]),
    0x0b,
  ];
  return [...locals, ...body];
}

/** The module's bytes: imports env.memory, exports tiles1 … tiles4. */
export function matmulTilesModuleBytes(): Uint8Array {
  return moduleBytes(8, range(MAX_TILE_ROWS).map((i) => ({ name: `tiles${i + 1}`, code: tilesFunction(i + 1) })));
}
