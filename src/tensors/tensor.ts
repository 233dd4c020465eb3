/**
 * A tensor is plain data: a dtype, a row-major shape and a typed array of exactly numel elements.
 * No classes, no proxies. Views share memory with the tensor they come from (typed-array subarray),
 * so writes through a view are visible in the original.
 */
import { bf16BitsToF32Array, f32ArrayToBf16Bits } from '../numerics/bf16.js';
import { f16BitsToF32Array, f32ArrayToF16Bits } from '../numerics/fp16.js';
import { dequantizeFp8, encodeFp8Array, type Fp8Mode } from '../numerics/fp8.js';
import { dtypeInfo, type DType, type DTypeArrays } from './dtypes.js';

export interface Tensor<D extends DType = DType> {
  dtype: D;
  shape: number[];
  data: DTypeArrays[D];
}

/** Number of elements of a shape ([] is a scalar: 1). Throws RangeError past 2^53. */
export function numel(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) {
    if (!Number.isSafeInteger(d) || d < 0)
      throw new RangeError(`bad dimension ${d} in shape [${shape.join(', ')}]`);
    n *= d;
    if (!Number.isSafeInteger(n))
      throw new RangeError(`shape [${shape.join(', ')}] has more than 2^53 elements`);
  }
  return n;
}

/** Row-major strides in elements. */
export function stridesOf(shape: readonly number[]): number[] {
  const s = new Array<number>(shape.length);
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    s[i] = acc;
    acc *= shape[i];
  }
  return s;
}

/** A tensor over existing data (checked: data.length == numel(shape)), or zero-filled when data is omitted. */
export function makeTensor<D extends DType>(
  dtype: D,
  shape: readonly number[],
  data?: DTypeArrays[D],
): Tensor<D> {
  const n = numel(shape);
  const d = data ?? new (dtypeInfo(dtype).arrayType)(n);
  if (d.length !== n)
    throw new RangeError(
      `${dtype} tensor of shape [${shape.join(', ')}] needs ${n} elements, got ${d.length}`,
    );
  if (!(d instanceof dtypeInfo(dtype).arrayType))
    throw new TypeError(`${dtype} data must be a ${dtypeInfo(dtype).arrayType.name}`);
  return { dtype, shape: [...shape], data: d };
}

/** The same data under another shape (one dimension may be -1: inferred). Shares memory. */
export function reshape<D extends DType>(t: Tensor<D>, shape: readonly number[]): Tensor<D> {
  const n = t.data.length;
  const unknown = shape.indexOf(-1);
  const resolved = [...shape];
  if (unknown >= 0) {
    const known = numel(shape.filter((_, i) => i !== unknown));
    if (known === 0 || n % known !== 0)
      throw new RangeError(`cannot reshape ${n} elements to [${shape.join(', ')}]`);
    resolved[unknown] = n / known;
  }
  if (numel(resolved) !== n) throw new RangeError(`cannot reshape ${n} elements to [${shape.join(', ')}]`);
  return { dtype: t.dtype, shape: resolved, data: t.data };
}

/** Rows [start, end) along the first dimension. Shares memory. */
export function sliceRows<D extends DType>(t: Tensor<D>, start: number, end: number): Tensor<D> {
  if (t.shape.length === 0) throw new RangeError('cannot slice a scalar');
  if (!(
    Number.isInteger(start) &&
    Number.isInteger(end) &&
    0 <= start &&
    start <= end &&
    end <= t.shape[0]
  )) {
    throw new RangeError(`rows [${start}, ${end}) out of range for first dimension ${t.shape[0]}`);
  }
  const row = numel(t.shape.slice(1));
  return {
    dtype: t.dtype,
    shape: [end - start, ...t.shape.slice(1)],
    data: t.data.subarray(start * row, end * row) as DTypeArrays[D],
  };
}

/** t[index] along the first dimension (one rank lower). Shares memory. */
export function selectRow<D extends DType>(t: Tensor<D>, index: number): Tensor<D> {
  const r = sliceRows(t, index, index + 1);
  return { dtype: r.dtype, shape: r.shape.slice(1), data: r.data };
}

/**
 * Values as float32 (a new array): float dtypes are decoded exactly (F64 rounds to float32),
 * integers and booleans convert by value (rounded to float32 above 2^24).
 */
export function toFloat32(t: Tensor): Float32Array {
  switch (t.dtype) {
    case 'F32':
      return Float32Array.from(t.data as Float32Array);
    case 'BF16':
      return bf16BitsToF32Array(t.data as Uint16Array);
    case 'F16':
      return f16BitsToF32Array(t.data as Uint16Array);
    case 'F8_E4M3':
      return dequantizeFp8(t.data as Uint8Array, 1, 'e4m3fn');
    case 'F8_E5M2':
      return dequantizeFp8(t.data as Uint8Array, 1, 'e5m2');
    case 'I64':
    case 'U64': {
      const src = t.data as BigInt64Array | BigUint64Array;
      const out = new Float32Array(src.length);
      for (let i = 0; i < src.length; i++) out[i] = Number(src[i]);
      return out;
    }
    default:
      return Float32Array.from(t.data as ArrayLike<number>);
  }
}

/**
 * float32 values → a float tensor of `dtype`: BF16/F16 round to nearest even; FP8 encodes with
 * `fp8Mode` (default satfinite, as a serving stack stores KV); F64 widens exactly.
 */
export function fromFloat32<D extends 'F64' | 'F32' | 'F16' | 'BF16' | 'F8_E4M3' | 'F8_E5M2'>(
  values: Float32Array,
  dtype: D,
  shape: readonly number[] = [values.length],
  fp8Mode: Fp8Mode = 'satfinite',
): Tensor<D> {
  let data: DTypeArrays[D];
  switch (dtype) {
    case 'F64':
      data = Float64Array.from(values) as DTypeArrays[D];
      break;
    case 'F32':
      data = Float32Array.from(values) as DTypeArrays[D];
      break;
    case 'F16':
      data = f32ArrayToF16Bits(values) as DTypeArrays[D];
      break;
    case 'BF16':
      data = f32ArrayToBf16Bits(values) as DTypeArrays[D];
      break;
    case 'F8_E4M3':
      data = encodeFp8Array(values, 'e4m3fn', fp8Mode) as DTypeArrays[D];
      break;
    default:
      data = encodeFp8Array(values, 'e5m2', fp8Mode) as DTypeArrays[D];
  }
  return makeTensor(dtype, shape, data);
}

/** Same dtype, shape and bytes (NaN payloads compared as stored). */
export function tensorsBitEqual(a: Tensor, b: Tensor): boolean {
  if (a.dtype !== b.dtype || a.shape.length !== b.shape.length || a.shape.some((d, i) => d !== b.shape[i]))
    return false;
  const ba = new Uint8Array(a.data.buffer, a.data.byteOffset, a.data.byteLength);
  const bb = new Uint8Array(b.data.buffer, b.data.byteOffset, b.data.byteLength);
  if (ba.length !== bb.length) return false;
  for (let i = 0; i < ba.length; i++) if (ba[i] !== bb[i]) return false;
  return true;
}

/** The raw little-endian bytes of a tensor's data (a view, no copy). */
export function tensorBytes(t: Tensor): Uint8Array {
  return new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
}
