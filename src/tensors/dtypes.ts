/**
 * Element types of tensors, named as safetensors names them, with the typed array that holds
 * each one. Low-precision floats are stored as their bit patterns (BF16/F16 in Uint16Array,
 * FP8 codes in Uint8Array) so that files round-trip bit for bit; `toFloat32` in tensor.ts decodes.
 */

export interface DTypeArrays {
  F64: Float64Array;
  F32: Float32Array;
  F16: Uint16Array; // IEEE binary16 bit patterns
  BF16: Uint16Array; // bfloat16 bit patterns
  F8_E4M3: Uint8Array; // E4M3FN codes (torch.float8_e4m3fn)
  F8_E5M2: Uint8Array; // E5M2 codes (torch.float8_e5m2)
  I64: BigInt64Array;
  I32: Int32Array;
  I16: Int16Array;
  I8: Int8Array;
  U64: BigUint64Array;
  U32: Uint32Array;
  U16: Uint16Array;
  U8: Uint8Array;
  BOOL: Uint8Array; // one byte per element, 0 or 1
}

export type DType = keyof DTypeArrays;
export type TypedArray = DTypeArrays[DType];

interface TypedArrayConstructor<A> {
  new (length: number): A;
  new (buffer: ArrayBuffer, byteOffset?: number, length?: number): A;
}

export interface DTypeInfo<D extends DType = DType> {
  dtype: D;
  itemSize: number; // bytes per element
  kind: 'float' | 'int' | 'uint' | 'bool';
  arrayType: TypedArrayConstructor<DTypeArrays[D]>;
}

function info<D extends DType>(
  dtype: D,
  itemSize: number,
  kind: DTypeInfo['kind'],
  arrayType: TypedArrayConstructor<DTypeArrays[D]>,
): DTypeInfo<D> {
  return { dtype, itemSize, kind, arrayType };
}

export const DTYPES: { readonly [D in DType]: DTypeInfo<D> } = {
  F64: info('F64', 8, 'float', Float64Array),
  F32: info('F32', 4, 'float', Float32Array),
  F16: info('F16', 2, 'float', Uint16Array),
  BF16: info('BF16', 2, 'float', Uint16Array),
  F8_E4M3: info('F8_E4M3', 1, 'float', Uint8Array),
  F8_E5M2: info('F8_E5M2', 1, 'float', Uint8Array),
  I64: info('I64', 8, 'int', BigInt64Array),
  I32: info('I32', 4, 'int', Int32Array),
  I16: info('I16', 2, 'int', Int16Array),
  I8: info('I8', 1, 'int', Int8Array),
  U64: info('U64', 8, 'uint', BigUint64Array),
  U32: info('U32', 4, 'uint', Uint32Array),
  U16: info('U16', 2, 'uint', Uint16Array),
  U8: info('U8', 1, 'uint', Uint8Array),
  BOOL: info('BOOL', 1, 'bool', Uint8Array),
};

export const ALL_DTYPES = Object.keys(DTYPES) as DType[];

export function isDType(name: unknown): name is DType {
  return typeof name === 'string' && Object.hasOwn(DTYPES, name);
}

export function dtypeInfo<D extends DType>(dtype: D): DTypeInfo<D> {
  return DTYPES[dtype] as DTypeInfo<D>;
}

/** A typed array of the dtype over a copy-free slice of `buffer` (byteOffset must be aligned to the item size). */
export function typedArrayOver<D extends DType>(
  dtype: D,
  buffer: ArrayBuffer,
  byteOffset: number,
  length: number,
): DTypeArrays[D] {
  return new (dtypeInfo(dtype).arrayType)(buffer, byteOffset, length);
}

/** Tensor files (safetensors, and .npy after byte-swapping) are little-endian; typed arrays use host order. */
export const HOST_IS_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
