/**
 * The few ONNX protobuf messages the export writes (onnx/onnx.proto: ModelProto, GraphProto,
 * NodeProto, AttributeProto, TensorProto, ValueInfoProto), encoded by hand: protobuf's wire format is
 * varint keys (field number << 3 | wire type) followed by a varint or a length-delimited body, and
 * no protobuf package is needed for five message types.
 */

/** Wire types: 0 varint, 2 length-delimited, 5 32-bit. */
type Field = { no: number; varint: number | bigint } | { no: number; bytes: Uint8Array } | { no: number; float: number };

function varint(v: number | bigint): number[] {
  let x = BigInt.asUintN(64, BigInt(v));
  const out: number[] = [];
  do {
    let b = Number(x & 0x7fn);
    x >>= 7n;
    if (x) b |= 0x80;
    out.push(b);
  } while (x);
  return out;
}

/** One message: its fields in order. */
export function message(fields: readonly Field[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const f of fields) {
    if ('varint' in f) parts.push(Uint8Array.from([...varint(f.no << 3), ...varint(f.varint)]));
    else if ('float' in f) {
      const key = varint((f.no << 3) | 5);
      const b = new Uint8Array(key.length + 4);
      b.set(key);
      new DataView(b.buffer).setFloat32(key.length, f.float, true);
      parts.push(b);
    } else parts.push(Uint8Array.from([...varint((f.no << 3) | 2), ...varint(f.bytes.length)]), f.bytes);
  }
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const text = (s: string) => new TextEncoder().encode(s);
const packedVarints = (xs: readonly number[]) => Uint8Array.from(xs.flatMap((x) => varint(x)));

/** TensorProto.DataType */
export const DType = { FLOAT: 1, INT32: 6, INT64: 7, BOOL: 9 } as const;
export type DTypeCode = (typeof DType)[keyof typeof DType];

export interface Tensor {
  name: string;
  dims: readonly number[];
  type: DTypeCode;
  /** Little-endian element bytes. */
  raw: Uint8Array;
}

export function floatTensor(name: string, dims: readonly number[], values: Float32Array): Tensor {
  return { name, dims, type: DType.FLOAT, raw: new Uint8Array(values.buffer, values.byteOffset, values.byteLength) };
}

export function int64Tensor(name: string, dims: readonly number[], values: readonly number[]): Tensor {
  const a = BigInt64Array.from(values.map((v) => BigInt(v)));
  return { name, dims, type: DType.INT64, raw: new Uint8Array(a.buffer) };
}

function tensorProto(t: Tensor): Uint8Array {
  return message([{ no: 1, bytes: packedVarints(t.dims) }, { no: 2, varint: t.type }, { no: 8, bytes: text(t.name) }, { no: 9, bytes: t.raw }]);
}

/** A node attribute: a float, an int, a list of ints, a string or a tensor. */
export type Attribute = number | { int: number } | { ints: readonly number[] } | { str: string } | { tensor: Tensor };

function attributeProto(name: string, a: Attribute): Uint8Array {
  // AttributeProto.type: FLOAT 1, INT 2, STRING 3, TENSOR 4, INTS 7
  if (typeof a === 'number') return message([{ no: 1, bytes: text(name) }, { no: 2, float: a }, { no: 20, varint: 1 }]);
  if ('int' in a) return message([{ no: 1, bytes: text(name) }, { no: 3, varint: a.int }, { no: 20, varint: 2 }]);
  if ('ints' in a) return message([{ no: 1, bytes: text(name) }, { no: 8, bytes: packedVarints(a.ints) }, { no: 20, varint: 7 }]);
  if ('str' in a) return message([{ no: 1, bytes: text(name) }, { no: 4, bytes: text(a.str) }, { no: 20, varint: 3 }]);
  return message([{ no: 1, bytes: text(name) }, { no: 5, bytes: tensorProto(a.tensor) }, { no: 20, varint: 4 }]);
}

export interface Node {
  op: string;
  inputs: readonly string[];
  outputs: readonly string[];
  attributes?: Record<string, Attribute>;
}

function nodeProto(n: Node, i: number): Uint8Array {
  return message([
    ...n.inputs.map((s) => ({ no: 1, bytes: text(s) })),
    ...n.outputs.map((s) => ({ no: 2, bytes: text(s) })),
    { no: 3, bytes: text(`${n.op}_${i}`) },
    { no: 4, bytes: text(n.op) },
    ...Object.entries(n.attributes ?? {}).map(([k, v]) => ({ no: 5, bytes: attributeProto(k, v) })),
  ]);
}

/** A graph input or output: element type and shape (a string dimension is symbolic, e.g. "batch"). */
export interface ValueInfo {
  name: string;
  type: DTypeCode;
  shape: readonly (number | string)[];
}

function valueInfoProto(v: ValueInfo): Uint8Array {
  const dims = v.shape.map((d) => ({ no: 1, bytes: message([typeof d === 'number' ? { no: 1, varint: d } : { no: 2, bytes: text(d) }]) }));
  const tensorType = message([{ no: 1, varint: v.type }, { no: 2, bytes: message(dims) }]);
  return message([{ no: 1, bytes: text(v.name) }, { no: 2, bytes: message([{ no: 1, bytes: tensorType }]) }]);
}

export interface Graph {
  name: string;
  nodes: readonly Node[];
  initializers: readonly Tensor[];
  inputs: readonly ValueInfo[];
  outputs: readonly ValueInfo[];
}

/** ModelProto bytes: IR version 8, the default-domain opset given. */
export function encodeModel(g: Graph, opset: number): Uint8Array {
  const graph = message([
    ...g.nodes.map((n, i) => ({ no: 1, bytes: nodeProto(n, i) })),
    { no: 2, bytes: text(g.name) },
    ...g.initializers.map((t) => ({ no: 5, bytes: tensorProto(t) })),
    ...g.inputs.map((v) => ({ no: 11, bytes: valueInfoProto(v) })),
    ...g.outputs.map((v) => ({ no: 12, bytes: valueInfoProto(v) })),
  ]);
  return message([
    { no: 1, varint: 8 },
    { no: 2, bytes: text('faultline bench/onnx') },
    { no: 7, bytes: graph },
    { no: 8, bytes: message([{ no: 1, bytes: text('') }, { no: 2, varint: opset }]) },
  ]);
}
