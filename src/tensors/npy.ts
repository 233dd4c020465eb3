/**
 * .npy reader (format versions 1.0–3.0, both byte orders) and a small v1 writer.
 *
 * Big-endian data is byte-swapped on read. Fortran-ordered arrays are transposed into row-major
 * order on read, so a Tensor is always row-major with the file's shape (decided this way because
 * every consumer in faultline indexes row-major; the copy costs one pass over the data).
 * The data length must equal numel(shape) × itemsize exactly: a truncated file or trailing bytes
 * are errors, and nothing is allocated before that check.
 */
import { openFileSource, memorySource, type ByteSource } from './byte-source.js';
import { dtypeInfo, HOST_IS_LITTLE_ENDIAN, typedArrayOver, type DType } from './dtypes.js';
import { npyFail, parseNpyHeader } from './npy-header.js';
import { makeTensor, numel, stridesOf, tensorBytes, type Tensor } from './tensor.js';

if (!HOST_IS_LITTLE_ENDIAN) throw new Error('faultline reads tensor files on little-endian hosts only');

export function readNpySource(src: ByteSource): Tensor {
  try {
    const h = parseNpyHeader(src.name, (n) => src.read(0, n), src.size);
    const itemSize = dtypeInfo(h.dtype).itemSize;
    let count = 1;
    for (const d of h.shape) {
      count *= d;
      if (!Number.isSafeInteger(count * itemSize))
        npyFail(src.name, `shape (${h.shape.join(', ')}) is impossibly large`);
    }
    const need = count * itemSize;
    const have = src.size - h.dataStart;
    if (have < need)
      npyFail(
        src.name,
        `shape (${h.shape.join(', ')}) of ${h.dtype} needs ${need} data bytes but the file holds ${have}`,
        'the file is truncated',
      );
    if (have > need) npyFail(src.name, `${have - need} bytes after the array data belong to nothing`);
    const bytes = src.read(h.dataStart, need);
    if (h.bigEndian && itemSize > 1) swapBytes(bytes, itemSize);
    const data = typedArrayOver(h.dtype, bytes.buffer as ArrayBuffer, 0, count);
    const t = makeTensor(h.dtype, h.shape, data);
    return h.fortranOrder && h.shape.length > 1 ? fortranToRowMajor(t) : t;
  } finally {
    src.close();
  }
}

export function readNpy(path: string): Tensor {
  return readNpySource(openFileSource(path, 'E_NPY'));
}

export function parseNpy(bytes: Uint8Array, label = '<memory>'): Tensor {
  return readNpySource(memorySource(bytes, label));
}

function swapBytes(b: Uint8Array, size: number): void {
  for (let i = 0; i < b.length; i += size) {
    for (let lo = i, hi = i + size - 1; lo < hi; lo++, hi--) {
      const x = b[lo];
      b[lo] = b[hi];
      b[hi] = x;
    }
  }
}

/** Element (i0, …, in-1) sits at Σ i_k·(d_0·…·d_{k-1}) in a Fortran-ordered buffer. */
function fortranToRowMajor<D extends DType>(t: Tensor<D>): Tensor<D> {
  const shape = t.shape;
  const n = numel(shape);
  const fStrides = shape.map((_, k) => numel(shape.slice(0, k)));
  const cStrides = stridesOf(shape);
  const out = makeTensor(t.dtype, shape);
  const src = t.data as unknown as { [i: number]: number | bigint };
  const dst = out.data as unknown as { [i: number]: number | bigint };
  for (let c = 0; c < n; c++) {
    let rest = c;
    let f = 0;
    for (let k = 0; k < shape.length; k++) {
      const idx = Math.floor(rest / cStrides[k]);
      rest -= idx * cStrides[k];
      f += idx * fStrides[k];
    }
    dst[c] = src[f];
  }
  return out;
}

const DTYPE_TO_DESCR: Partial<Record<DType, string>> = {
  F16: '<f2',
  F32: '<f4',
  F64: '<f8',
  I8: '|i1',
  I16: '<i2',
  I32: '<i4',
  I64: '<i8',
  U8: '|u1',
  U16: '<u2',
  U32: '<u4',
  U64: '<u8',
  BOOL: '|b1',
};

/** A v1.0 little-endian, row-major .npy file. BF16 and FP8 have no numpy dtype and are refused. */
export function serializeNpy(t: Tensor): Uint8Array {
  const descr = DTYPE_TO_DESCR[t.dtype];
  if (!descr) throw new RangeError(`${t.dtype} has no .npy dtype; save it as safetensors`);
  const shape = t.shape.length === 1 ? `(${t.shape[0]},)` : `(${t.shape.join(', ')})`;
  let dict = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  const pad = 64 - ((10 + dict.length + 1) % 64);
  dict += ' '.repeat(pad % 64) + '\n';
  const head = new Uint8Array(10 + dict.length);
  head.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
  new DataView(head.buffer).setUint16(8, dict.length, true);
  head.set(new TextEncoder().encode(dict), 10);
  const body = tensorBytes(t);
  const out = new Uint8Array(head.length + body.length);
  out.set(head);
  out.set(body, head.length);
  return out;
}
