/**
 * The GGUF container's constants (version 3, little-endian), as the format's specification defines
 * them: ggml-org/ggml docs/gguf.md ("GGUF" magic, metadata value types, tensor-info layout, data
 * alignment) and ggml.h's `enum ggml_type` for the tensor types faultline writes.
 */
export const GGUF_MAGIC = 'GGUF';
export const GGUF_VERSION = 3;
export const DEFAULT_ALIGNMENT = 32;

/** Metadata value types (gguf_metadata_value_type). */
export const ValueType = {
  UINT8: 0,
  INT8: 1,
  UINT16: 2,
  INT16: 3,
  UINT32: 4,
  INT32: 5,
  FLOAT32: 6,
  BOOL: 7,
  STRING: 8,
  ARRAY: 9,
  UINT64: 10,
  INT64: 11,
  FLOAT64: 12,
} as const;

/** Tensor types faultline writes (ggml_type values). */
export const TensorType = { F32: 0, F16: 1, Q8_0: 8, BF16: 30 } as const;
export type TensorTypeName = keyof typeof TensorType;

/** A metadata value with the type it is written as. */
export type GgufValue =
  | { type: 'u32'; value: number }
  | { type: 'i32'; value: number }
  | { type: 'f32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'string[]'; value: readonly string[] }
  | { type: 'i32[]'; value: readonly number[] }
  | { type: 'f32[]'; value: readonly number[] };

export const u32 = (value: number): GgufValue => ({ type: 'u32', value });
export const f32 = (value: number): GgufValue => ({ type: 'f32', value });
export const str = (value: string): GgufValue => ({ type: 'string', value });
export const bool = (value: boolean): GgufValue => ({ type: 'bool', value });
