/**
 * One small tensor of every dtype with the values most likely to break a reader or writer:
 * signed zeros, infinities, NaN, subnormals, extremes of every integer type, all 256 FP8 codes,
 * a scalar and an empty tensor. Used by the round-trip tests and to write the interop fixtures
 * (tools/interop/make-fixtures.ts) that Python's safetensors/torch must read back exactly.
 */
import { makeTensor, type Tensor } from './tensor.js';

const allBytes = () => Uint8Array.from({ length: 256 }, (_, i) => i);

export function sampleTensors(): Record<string, Tensor> {
  return {
    f64: makeTensor(
      'F64',
      [2, 5],
      new Float64Array([0, -0, 1.5, -2.25, 1e300, 5e-324, Infinity, -Infinity, NaN, Math.PI]),
    ),
    f32: makeTensor(
      'F32',
      [10],
      new Float32Array([
        0,
        -0,
        1,
        -1,
        3.4028234663852886e38,
        1.401298464324817e-45,
        Infinity,
        -Infinity,
        NaN,
        0.1,
      ]),
    ),
    f16: makeTensor(
      'F16',
      [5, 2],
      new Uint16Array([0x0000, 0x8000, 0x3c00, 0xbc00, 0x7bff, 0x0001, 0x7c00, 0xfc00, 0x7e00, 0x3555]),
    ),
    bf16: makeTensor(
      'BF16',
      [2, 5],
      new Uint16Array([0x0000, 0x8000, 0x3f80, 0xbf80, 0x7f7f, 0x0001, 0x7f80, 0xff80, 0x7fc0, 0x3dcd]),
    ),
    f8_e4m3: makeTensor('F8_E4M3', [16, 16], allBytes()),
    f8_e5m2: makeTensor('F8_E5M2', [16, 16], allBytes()),
    i64: makeTensor(
      'I64',
      [5],
      new BigInt64Array([0n, -1n, 9223372036854775807n, -9223372036854775808n, 1234567890123n]),
    ),
    i32: makeTensor('I32', [5], new Int32Array([0, -1, 2147483647, -2147483648, 7])),
    i16: makeTensor('I16', [4], new Int16Array([0, -1, 32767, -32768])),
    i8: makeTensor('I8', [4], new Int8Array([0, -1, 127, -128])),
    u64: makeTensor('U64', [3], new BigUint64Array([0n, 18446744073709551615n, 42n])),
    u32: makeTensor('U32', [3], new Uint32Array([0, 4294967295, 42])),
    u16: makeTensor('U16', [3], new Uint16Array([0, 65535, 42])),
    u8: makeTensor('U8', [2, 3], new Uint8Array([0, 1, 127, 128, 254, 255])),
    bool: makeTensor('BOOL', [5], new Uint8Array([1, 0, 1, 1, 0])),
    scalar_f32: makeTensor('F32', [], new Float32Array([0.0123])),
    empty_bf16: makeTensor('BF16', [0, 3], new Uint16Array(0)),
    '0': makeTensor('I8', [1], new Int8Array([5])), // an integer-like name: must not reorder the header
  };
}
