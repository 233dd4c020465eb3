/**
 * Float32 values → the bytes of a GGUF tensor: F32 as is, BF16 rounded to nearest even, Q8_0 as
 * ggml's reference quantizer lays it out (ggml-quants.c `quantize_row_q8_0_ref`: blocks of 32
 * values, an FP16 scale d = max|x| / 127, then 32 int8 round(x / d)).
 */
import { f32ArrayToBf16Bits } from '../numerics/bf16.js';
import { f32ToF16Bits } from '../numerics/fp16.js';
import type { TensorTypeName } from './format.js';

export const Q8_0_BLOCK = 32;

export function encodeTensor(values: Float32Array, type: TensorTypeName): Uint8Array {
  if (type === 'F32')
    return new Uint8Array(values.buffer.slice(values.byteOffset, values.byteOffset + values.byteLength));
  if (type === 'BF16') return new Uint8Array(f32ArrayToBf16Bits(values).buffer);
  if (type === 'Q8_0') return quantizeQ8_0(values);
  throw new Error(`no encoder for tensor type ${type}`);
}

function quantizeQ8_0(x: Float32Array): Uint8Array {
  if (x.length % Q8_0_BLOCK !== 0)
    throw new Error(`Q8_0 needs a multiple of ${Q8_0_BLOCK} values, got ${x.length}`);
  const blocks = x.length / Q8_0_BLOCK;
  const out = new Uint8Array(blocks * (2 + Q8_0_BLOCK));
  const view = new DataView(out.buffer);
  for (let b = 0; b < blocks; b++) {
    const base = b * Q8_0_BLOCK;
    let amax = 0;
    for (let i = 0; i < Q8_0_BLOCK; i++) amax = Math.max(amax, Math.abs(x[base + i]));
    const d = amax / 127;
    const id = d ? 1 / d : 0;
    const at = b * (2 + Q8_0_BLOCK);
    view.setUint16(at, f32ToF16Bits(d), true);
    for (let i = 0; i < Q8_0_BLOCK; i++)
      view.setInt8(at + 2 + i, roundHalfAway(Math.fround(x[base + i] * id)));
  }
  return out;
}

/** C's roundf: halves away from zero (Math.round rounds -0.5 up). */
function roundHalfAway(v: number): number {
  return Math.sign(v) * Math.round(Math.abs(v));
}
