/**
 * A WebAssembly SIMD matvec, assembled here byte by byte (no toolchain needed):
 *   matvec(w, x, out, D, O): out[o] = Σ_i w[o·D + i] · x[i]  for o < O   (byte addresses, float32)
 * Each output uses four f32x4 accumulators over 16-float chunks (lanes = i mod 16 positions), then
 * a 4-float tail into the first accumulator, a scalar tail, and a fixed reduction
 * ((a0 + a1) + (a2 + a3)) lanes ((l0 + l1) + (l2 + l3)) + scalar. Products are rounded to float32
 * before each add (no FMA). The order is fixed, so results are deterministic and batch-invariant.
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

// params: 0 w, 1 x, 2 out, 3 D, 4 O; locals: 5 o, 6 wp, 7 xp, 8 end, 9..12 a0..a3 (v128), 13 s (f32)
const [W, X, OUT, D, O, o, wp, xp, end, a0, a1, a2, a3, s] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13];

/** acc += load(wp + off) * load(xp + off) */
const macc = (acc: number, off: number) => [
  ...get(acc),
  ...get(wp),
  ...v128load(off),
  ...get(xp),
  ...v128load(off),
  ...f32x4mul,
  ...f32x4add,
  ...set(acc),
];
const bump = (p: number, by: number) => [...get(p), ...i32c(by), ...add, ...set(p)];
/** end = x + (D & mask) · 4 */
const setEnd = (mask: number) => [
  ...get(X),
  ...get(D),
  ...i32c(mask),
  ...and,
  ...i32c(4),
  ...mul,
  ...add,
  ...set(end),
];
/** Repeats `body` while xp < end (the loop both chunk sizes use). */
const whileBeforeEnd = (body: number[]) => block(loop([...get(xp), ...get(end), ...geU, ...brIf(1), ...body, ...br(0)]));

const body = [
  ...i32c(0),
  ...set(o),
  ...block(
    loop([
      ...get(o),
      ...get(O),
      ...geU,
      ...brIf(1),
      // wp = w + o·D·4, xp = x
      ...get(W),
      ...get(o),
      ...get(D),
      ...mul,
      ...i32c(4),
      ...mul,
      ...add,
      ...set(wp),
      ...get(X),
      ...set(xp),
      ...v128zero,
      ...set(a0),
      ...v128zero,
      ...set(a1),
      ...v128zero,
      ...set(a2),
      ...v128zero,
      ...set(a3),
      ...setEnd(~15),
      ...whileBeforeEnd([...macc(a0, 0), ...macc(a1, 16), ...macc(a2, 32), ...macc(a3, 48), ...bump(wp, 64), ...bump(xp, 64)]),
      ...setEnd(~3),
      ...whileBeforeEnd([...macc(a0, 0), ...bump(wp, 16), ...bump(xp, 16)]),
      0x43,
      0,
      0,
      0,
      0,
      ...set(s), // f32.const 0
      ...setEnd(-1),
      ...block(
        loop([
          ...get(xp),
          ...get(end),
          ...geU,
          ...brIf(1),
          ...get(s),
          ...get(wp),
          0x2a,
          2,
          0,
          ...get(xp),
          0x2a,
          2,
          0,
          0x94,
          0x92,
          ...set(s), // s += f32(w)·f32(x)
          ...bump(wp, 4),
          ...bump(xp, 4),
          ...br(0),
        ]),
      ),
      // a0 = (a0 + a1) + (a2 + a3); out[o] = ((l0 + l1) + (l2 + l3)) + s
      ...get(a0),
      ...get(a1),
      ...f32x4add,
      ...get(a2),
      ...get(a3),
      ...f32x4add,
      ...f32x4add,
      ...set(a0),
      ...get(OUT),
      ...get(o),
      ...i32c(4),
      ...mul,
      ...add,
      ...get(a0),
      ...lane(0),
      ...get(a0),
      ...lane(1),
      0x92,
      ...get(a0),
      ...lane(2),
      ...get(a0),
      ...lane(3),
      0x92,
      0x92,
      ...get(s),
      0x92,
      0x38,
      2,
      0, // f32.store
      ...bump(o, 1),
      ...br(0),
    ]),
  ),
  0x0b,
];

const locals = vec([
  [4, I32],
  [4, V128],
  [1, F32],
]);
const code = [...locals, ...body];

/** The module's bytes: imports env.memory, exports matvec. */
export function matvecModuleBytes(): Uint8Array {
  return moduleBytes(5, [{ name: 'matvec', code }]);
}
