/**
 * A WebAssembly SIMD kernel for several rows at once, assembled byte by byte like matvec-module.ts:
 *
 *   rowsR(w, x, out, len, O, ldw, ldx)    R = 1 … 4 rows
 *     out[r·O + o] = Σ_{i < len} w[o·ldw + i] · x[r·ldx + i]      (w, x, out: byte addresses; float32)
 *
 * Each weight chunk is loaded once and used for all R rows (the point of batching: R× less weight
 * traffic and fewer loads per multiply). Every output keeps EXACTLY matvec-module's order — four
 * f32x4 accumulators over 16-float chunks, a 4-float tail into the first, a scalar tail, the fixed
 * reduction ((a0 + a1) + (a2 + a3)) lanes ((l0 + l1) + (l2 + l3)) + scalar, no FMA — so a row's
 * result is bit-identical whether it runs alone (matvec) or in a block of R: batch-invariant.
 * `ldw` > len lets a caller reduce over a column range of a weight matrix (batch-variant split-K).
 */

import {
  I32,
  F32,
  V128,
  moduleBytes,
  vec,
  get,
  set,
  i32c,
  add,
  mul,
  and,
  geU,
  v128load,
  f32x4add,
  f32x4mul,
  lane,
  v128zero,
  block,
  loop,
  brIf,
  br,
} from './assembler.js';
const f32load = [0x2a, 2, 0],
  f32store = [0x38, 2, 0],
  f32add = [0x92],
  f32mul = [0x94];
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** The body of rowsR: params 0 w, 1 x, 2 out, 3 len, 4 O, 5 ldw, 6 ldx. */
function rowsFunction(R: number): number[] {
  const [W, X, OUT, LEN, O, LDW, LDX] = [0, 1, 2, 3, 4, 5, 6];
  const o = 7,
    wp = 8,
    j = 9,
    end = 10;
  const xr = (r: number) => 11 + r; // i32: row r's x base
  const wv = 11 + R; // v128: the weight chunk
  const acc = (r: number, q: number) => 12 + R + 4 * r + q; // v128
  const s = (r: number) => 12 + 5 * R + r; // f32
  const locals = vec([
    [4 + R, I32],
    [1 + 4 * R, V128],
    [R, F32],
  ]);

  const setEnd = (mask: number) => [...get(LEN), ...i32c(mask), ...and, ...i32c(4), ...mul, ...set(end)];
  const macc = (r: number, q: number, offset: number) => [
    ...get(acc(r, q)),
    ...get(wv),
    ...get(xr(r)),
    ...get(j),
    ...add,
    ...v128load(offset),
    ...f32x4mul,
    ...f32x4add,
    ...set(acc(r, q)),
  ];
  const loadW = (offset: number) => [...get(wp), ...get(j), ...add, ...v128load(offset), ...set(wv)];
  const bumpJ = (by: number) => [...get(j), ...i32c(by), ...add, ...set(j)];
  const untilEnd = (body: number[]) =>
    block(loop([...get(j), ...get(end), ...geU, ...brIf(1), ...body, ...br(0)]));

  const body = [
    // xr[r] = x + r·ldx·4
    ...range(R).flatMap((r) => [...get(X), ...get(LDX), ...i32c(4 * r), ...mul, ...add, ...set(xr(r))]),
    ...i32c(0),
    ...set(o),
    ...block(
      loop([
        ...get(o),
        ...get(O),
        ...geU,
        ...brIf(1),
        ...get(W),
        ...get(o),
        ...get(LDW),
        ...mul,
        ...i32c(4),
        ...mul,
        ...add,
        ...set(wp),
        ...range(R).flatMap((r) => [
          ...range(4).flatMap((q) => [...v128zero, ...set(acc(r, q))]),
          0x43,
          0,
          0,
          0,
          0,
          ...set(s(r)),
        ]),
        ...i32c(0),
        ...set(j),
        ...setEnd(~15),
        ...untilEnd([
          ...range(4).flatMap((q) => [...loadW(16 * q), ...range(R).flatMap((r) => macc(r, q, 16 * q))]),
          ...bumpJ(64),
        ]),
        ...setEnd(~3),
        ...untilEnd([...loadW(0), ...range(R).flatMap((r) => macc(r, 0, 0)), ...bumpJ(16)]),
        ...get(LEN),
        ...i32c(4),
        ...mul,
        ...set(end),
        ...untilEnd([
          ...range(R).flatMap((r) => [
            ...get(s(r)),
            ...get(wp),
            ...get(j),
            ...add,
            ...f32load,
            ...get(xr(r)),
            ...get(j),
            ...add,
            ...f32load,
            ...f32mul,
            ...f32add,
            ...set(s(r)),
          ]),
          ...bumpJ(4),
        ]),
        ...range(R).flatMap((r) => [
          ...get(acc(r, 0)),
          ...get(acc(r, 1)),
          ...f32x4add,
          ...get(acc(r, 2)),
          ...get(acc(r, 3)),
          ...f32x4add,
          ...f32x4add,
          ...set(acc(r, 0)),
          // address out + (r·O + o)·4
          ...get(OUT),
          ...get(O),
          ...i32c(r),
          ...mul,
          ...get(o),
          ...add,
          ...i32c(4),
          ...mul,
          ...add,
          ...get(acc(r, 0)),
          ...lane(0),
          ...get(acc(r, 0)),
          ...lane(1),
          ...f32add,
          ...get(acc(r, 0)),
          ...lane(2),
          ...get(acc(r, 0)),
          ...lane(3),
          ...f32add,
          ...f32add,
          ...get(s(r)),
          ...f32add,
          ...f32store,
        ]),
        ...get(o),
        ...i32c(1),
        ...add,
        ...set(o),
        ...br(0),
      ]),
    ),
    0x0b,
  ];
  return [...locals, ...body];
}

export const MAX_BLOCK_ROWS = 4;

/** The module's bytes: imports env.memory, exports rows1 … rows4. */
export function matmulRowsModuleBytes(): Uint8Array {
  return moduleBytes(7, range(MAX_BLOCK_ROWS).map((i) => ({ name: `rows${i + 1}`, code: rowsFunction(i + 1) })));
}
