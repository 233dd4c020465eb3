/**
 * The few WebAssembly binary-format pieces the engine's SIMD kernels are assembled from, byte by
 * byte (no toolchain needed): LEB128 numbers, sections, and the instructions the kernels use.
 * Shared by the matmul modules and attention-module.ts.
 */

export const I32 = 0x7f,
  F32 = 0x7d,
  F64 = 0x7c,
  V128 = 0x7b;

export function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}

export function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && !(b & 0x40)) || (n === -1 && b & 0x40)) return [...out, b];
    out.push(b | 0x80);
  }
}

export const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];
export const vec = (items: number[][]) => [...uleb(items.length), ...items.flat()];
export const str = (s: string) => [...uleb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];

// instructions
export const get = (i: number) => [0x20, ...uleb(i)];
export const set = (i: number) => [0x21, ...uleb(i)];
export const i32c = (n: number) => [0x41, ...sleb(n)];
export const add = [0x6a],
  mul = [0x6c],
  and = [0x71],
  geU = [0x4f];
export const simd = (op: number, ...imm: number[]) => [0xfd, ...uleb(op), ...imm];
export const v128load = (offset: number) => simd(0x00, 4, ...uleb(offset)); // align 2^4
export const f32x4add = simd(228),
  f32x4mul = simd(230);
export const lane = (l: number) => simd(31, l);
export const v128zero = simd(12, ...new Array(16).fill(0));
export const block = (body: number[]) => [0x02, 0x40, ...body, 0x0b];
export const loop = (body: number[]) => [0x03, 0x40, ...body, 0x0b];
export const brIf = (d: number) => [0x0d, ...uleb(d)];
export const br = (d: number) => [0x0c, ...uleb(d)];

/**
 * A whole module: imports env.memory (min 1 page), declares one function type of `params` i32
 * parameters and no result, and exports each function body under its name (in order).
 */
export function moduleBytes(params: number, functions: { name: string; code: number[] }[]): Uint8Array {
  const i32s = Array.from({ length: params }, () => I32);
  return typedModuleBytes(functions.map((f) => ({ ...f, params: i32s })));
}

/**
 * A module whose functions each have their own parameter types (I32, F64, …) and no result; imports
 * env.memory (min 1 page, growable by its owner) and exports each function under its name.
 */
export function typedModuleBytes(functions: { name: string; params: number[]; code: number[] }[]): Uint8Array {
  const magicAndVersion = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  return Uint8Array.from([
    ...magicAndVersion,
    ...section(1, vec(functions.map((f) => [0x60, ...vec(f.params.map((t) => [t])), 0]))),
    ...section(2, vec([[...str('env'), ...str('memory'), 0x02, 0x00, 0x01]])),
    ...section(3, vec(functions.map((_, i) => uleb(i)))),
    ...section(7, vec(functions.map((f, i) => [...str(f.name), 0x00, ...uleb(i)]))),
    ...section(10, vec(functions.map((f) => [...uleb(f.code.length), ...f.code]))),
  ]);
}
