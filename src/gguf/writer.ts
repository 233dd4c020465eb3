/**
 * Serializes a GGUF v3 file: header, metadata key/value pairs, tensor infos, then each tensor's
 * bytes at an offset aligned to `general.alignment` (ggml-org/ggml docs/gguf.md, "File Structure").
 * Dimensions are written innermost first (ggml's ne order): a torch [out, in] matrix is [in, out].
 */
import {
  DEFAULT_ALIGNMENT,
  GGUF_MAGIC,
  GGUF_VERSION,
  TensorType,
  ValueType,
  type GgufValue,
  type TensorTypeName,
} from './format.js';

export interface GgufTensor {
  name: string;
  /** ggml order: the innermost (contiguous) dimension first. */
  dims: readonly number[];
  type: TensorTypeName;
  data: Uint8Array;
}

class ByteWriter {
  private chunks: Uint8Array[] = [];
  length = 0;
  private scratch = new DataView(new ArrayBuffer(8));

  bytes(b: Uint8Array): void {
    this.chunks.push(b);
    this.length += b.length;
  }
  private fixed(n: number, set: (v: DataView) => void): void {
    set(this.scratch);
    this.bytes(new Uint8Array(this.scratch.buffer.slice(0, n)));
  }
  u32(v: number): void {
    this.fixed(4, (d) => d.setUint32(0, v, true));
  }
  i32(v: number): void {
    this.fixed(4, (d) => d.setInt32(0, v, true));
  }
  u64(v: number): void {
    this.fixed(8, (d) => d.setBigUint64(0, BigInt(v), true));
  }
  f32(v: number): void {
    this.fixed(4, (d) => d.setFloat32(0, v, true));
  }
  string(s: string): void {
    const b = new TextEncoder().encode(s);
    this.u64(b.length);
    this.bytes(b);
  }
  padTo(alignment: number): void {
    const pad = (alignment - (this.length % alignment)) % alignment;
    if (pad) this.bytes(new Uint8Array(pad));
  }
  concat(): Uint8Array {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}

function writeValue(w: ByteWriter, v: GgufValue): void {
  switch (v.type) {
    case 'u32':
      return (w.u32(ValueType.UINT32), w.u32(v.value));
    case 'i32':
      return (w.u32(ValueType.INT32), w.i32(v.value));
    case 'f32':
      return (w.u32(ValueType.FLOAT32), w.f32(v.value));
    case 'bool':
      return (w.u32(ValueType.BOOL), w.bytes(new Uint8Array([v.value ? 1 : 0])));
    case 'string':
      return (w.u32(ValueType.STRING), w.string(v.value));
    case 'string[]':
      return writeArray(w, ValueType.STRING, v.value, (s) => w.string(s));
    case 'i32[]':
      return writeArray(w, ValueType.INT32, v.value, (x) => w.i32(x));
    case 'f32[]':
      return writeArray(w, ValueType.FLOAT32, v.value, (x) => w.f32(x));
  }
}

/** A GGUF array value: the ARRAY tag, the element type, the count, then the elements. */
function writeArray<T>(w: { u32(x: number): unknown; u64(x: number): unknown }, type: number, items: readonly T[], put: (item: T) => unknown): void {
  w.u32(ValueType.ARRAY);
  w.u32(type);
  w.u64(items.length);
  for (const item of items) put(item);
}

export function serializeGguf(
  metadata: ReadonlyMap<string, GgufValue>,
  tensors: readonly GgufTensor[],
): Uint8Array {
  const alignmentValue = metadata.get('general.alignment');
  const alignment = alignmentValue?.type === 'u32' ? alignmentValue.value : DEFAULT_ALIGNMENT;
  const w = new ByteWriter();
  w.bytes(new TextEncoder().encode(GGUF_MAGIC));
  w.u32(GGUF_VERSION);
  w.u64(tensors.length);
  w.u64(metadata.size);
  for (const [key, value] of metadata) {
    w.string(key);
    writeValue(w, value);
  }
  let offset = 0;
  const offsets: number[] = [];
  for (const t of tensors) {
    offsets.push(offset);
    offset += t.data.length;
    offset += (alignment - (offset % alignment)) % alignment;
  }
  tensors.forEach((t, i) => {
    w.string(t.name);
    w.u32(t.dims.length);
    for (const d of t.dims) w.u64(d);
    w.u32(TensorType[t.type]);
    w.u64(offsets[i]);
  });
  w.padTo(alignment);
  for (const t of tensors) {
    w.bytes(t.data);
    w.padTo(alignment);
  }
  return w.concat();
}
