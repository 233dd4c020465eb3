/**
 * safetensors files: open one and read tensors by name with positional reads (the data region
 * is never loaded whole), read a whole file, and write one. Header rules: safetensors-header.ts.
 *
 * Writing: tensors are laid out by item size, largest first, then by name, so every tensor's
 * offset is a multiple of its item size; the JSON header is padded with spaces (the format allows
 * trailing whitespace) so the data region starts at a multiple of 8. The file is written to a
 * temporary name beside the target and renamed into place, so a reader never sees half a file.
 */
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { UserError } from '../core/errors.js';
import { memorySource, openFileSource, type ByteSource } from './byte-source.js';
import { dtypeInfo, HOST_IS_LITTLE_ENDIAN, isDType, typedArrayOver, type DType } from './dtypes.js';
import {
  readSafetensorsHeader,
  type SafetensorsEntry,
  type SafetensorsHeader,
} from './safetensors-header.js';
import { numel, tensorBytes, type Tensor } from './tensor.js';

const CODE = 'E_SAFETENSORS';

if (!HOST_IS_LITTLE_ENDIAN) throw new Error('faultline reads tensor files on little-endian hosts only');

export interface SafetensorsFile {
  readonly path: string;
  readonly header: SafetensorsHeader;
  /** Tensor names in file (offset) order. */
  readonly names: string[];
  readonly metadata: Record<string, string>;
  has(name: string): boolean;
  /** dtype and shape without reading data. */
  info(name: string): { dtype: DType; shape: number[] };
  /** Reads just this tensor's bytes. */
  read(name: string): Tensor;
  close(): void;
}

export interface SafetensorsContents {
  tensors: Map<string, Tensor>;
  metadata: Record<string, string>;
}

function openSource(src: ByteSource): SafetensorsFile {
  let header: SafetensorsHeader;
  try {
    header = readSafetensorsHeader(src);
  } catch (e) {
    src.close();
    throw e;
  }
  const byName = new Map<string, SafetensorsEntry>(header.entries.map((e) => [e.name, e]));
  const entry = (name: string): SafetensorsEntry => {
    const e = byName.get(name);
    if (!e) {
      const some = header.entries.slice(0, 8).map((x) => x.name);
      const more = header.entries.length > 8 ? `, … (${header.entries.length} in all)` : '';
      throw new UserError(`${src.name}: no tensor named "${name}"`, {
        code: CODE,
        hint: header.entries.length ? `it holds: ${some.join(', ')}${more}` : 'the file holds no tensors',
      });
    }
    return e;
  };
  return {
    path: src.name,
    header,
    names: header.entries.map((e) => e.name),
    metadata: header.metadata,
    has: (name) => byName.has(name),
    info(name) {
      const e = entry(name);
      return { dtype: e.dtype, shape: [...e.shape] };
    },
    read(name) {
      const e = entry(name);
      const bytes = src.read(header.dataStart + e.begin, e.end - e.begin);
      const data = typedArrayOver(e.dtype, bytes.buffer as ArrayBuffer, 0, numel(e.shape));
      return { dtype: e.dtype, shape: [...e.shape], data };
    },
    close: () => src.close(),
  };
}

/** Opens any byte source (tests use counting sources); the source is closed with the result. */
export function openSafetensorsSource(src: ByteSource): SafetensorsFile {
  return openSource(src);
}

/** Opens a file and validates its header; tensors are read on demand. Close it when done. */
export function openSafetensors(path: string): SafetensorsFile {
  return openSource(openFileSource(path, CODE));
}

/** Parses safetensors bytes already in memory (label is used in messages). */
export function parseSafetensors(bytes: Uint8Array, label = '<memory>'): SafetensorsContents {
  return readAll(openSource(memorySource(bytes, label)));
}

/** Reads every tensor of a file. */
export function readSafetensors(path: string): SafetensorsContents {
  return readAll(openSafetensors(path));
}

function readAll(f: SafetensorsFile): SafetensorsContents {
  try {
    const tensors = new Map<string, Tensor>();
    for (const name of f.names) tensors.set(name, f.read(name));
    return { tensors, metadata: f.metadata };
  } finally {
    f.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Writing

type TensorSet = Record<string, Tensor> | Map<string, Tensor>;

interface Planned {
  name: string;
  tensor: Tensor;
  begin: number;
  end: number;
}

function checkTensor(name: string, t: Tensor): void {
  if (name === '__metadata__') throw new UserError('"__metadata__" cannot be a tensor name', { code: CODE });
  if (!isDType(t.dtype))
    throw new UserError(`tensor "${name}": unknown dtype ${JSON.stringify(t.dtype)}`, { code: CODE });
  const info = dtypeInfo(t.dtype);
  if (!(t.data instanceof info.arrayType)) {
    throw new UserError(`tensor "${name}": ${t.dtype} data must be a ${info.arrayType.name}`, { code: CODE });
  }
  if (t.data.length !== numel(t.shape)) {
    throw new UserError(
      `tensor "${name}": shape [${t.shape.join(', ')}] needs ${numel(t.shape)} elements, data has ${t.data.length}`,
      { code: CODE },
    );
  }
}

function plan(tensors: TensorSet): Planned[] {
  const list = tensors instanceof Map ? [...tensors.entries()] : Object.entries(tensors);
  for (const [name, t] of list) checkTensor(name, t);
  list.sort(
    ([na, a], [nb, b]) =>
      dtypeInfo(b.dtype).itemSize - dtypeInfo(a.dtype).itemSize || (na < nb ? -1 : na > nb ? 1 : 0),
  );
  let offset = 0;
  return list.map(([name, tensor]) => {
    const begin = offset;
    offset += tensor.data.byteLength;
    return { name, tensor, begin, end: offset };
  });
}

function headerBytes(planned: Planned[], metadata?: Record<string, string>): Uint8Array {
  // Built by hand so the key order is the layout order (an object would move integer-like names first).
  const parts: string[] = [];
  if (metadata) {
    for (const [k, v] of Object.entries(metadata)) {
      if (typeof v !== 'string') throw new UserError(`metadata "${k}" must be a string`, { code: CODE });
    }
    parts.push(`"__metadata__":${JSON.stringify(metadata)}`);
  }
  for (const p of planned) {
    const entry = { dtype: p.tensor.dtype, shape: p.tensor.shape, data_offsets: [p.begin, p.end] };
    parts.push(`${JSON.stringify(p.name)}:${JSON.stringify(entry)}`);
  }
  const json = new TextEncoder().encode(`{${parts.join(',')}}`);
  const padded = Math.ceil(json.length / 8) * 8; // 8 + padded is then a multiple of 8
  const out = new Uint8Array(8 + padded).fill(0x20);
  new DataView(out.buffer).setBigUint64(0, BigInt(padded), true);
  out.set(json, 8);
  return out;
}

/** The complete file as bytes (for small files and tests). */
export function serializeSafetensors(tensors: TensorSet, metadata?: Record<string, string>): Uint8Array {
  const planned = plan(tensors);
  const head = headerBytes(planned, metadata);
  const total = head.length + (planned.length ? planned[planned.length - 1].end : 0);
  const out = new Uint8Array(total);
  out.set(head, 0);
  for (const p of planned) out.set(tensorBytes(p.tensor), head.length + p.begin);
  return out;
}

/** Writes a safetensors file (atomically: a temporary file beside it, then a rename). */
export function writeSafetensors(path: string, tensors: TensorSet, metadata?: Record<string, string>): void {
  const planned = plan(tensors);
  const head = headerBytes(planned, metadata);
  const tmp = `${path}.tmp-${process.pid}`;
  let fd: number | undefined;
  try {
    fd = openSync(tmp, 'w');
    writeAll(fd, head);
    for (const p of planned) writeAll(fd, tensorBytes(p.tensor));
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, path);
  } catch (e) {
    if (fd !== undefined) closeSync(fd);
    rmSync(tmp, { force: true });
    const err = e as NodeJS.ErrnoException;
    if (err.code && !(e instanceof UserError)) {
      throw new UserError(`cannot write ${path}: ${err.code}`, {
        code: CODE,
        hint: 'check that the directory exists and is writable',
        cause: e,
      });
    }
    throw e;
  }
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
}
