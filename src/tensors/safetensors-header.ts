/**
 * Reading and validating a safetensors header. Layout: an unsigned 64-bit little-endian length N,
 * N bytes of UTF-8 JSON (may be padded with trailing spaces), then the data region. The JSON maps
 * tensor names to {dtype, shape, data_offsets: [begin, end]} (byte offsets into the data region)
 * plus an optional "__metadata__" object of string → string.
 *
 * Rules, checked before anything is allocated from the header's numbers:
 * - N ≤ 100,000,000 (the cap the reference implementation uses) and 8 + N ≤ file size;
 * - the header is UTF-8 JSON whose top level is an object;
 * - every dtype is one faultline knows (dtypes.ts); shape is an array of non-negative safe integers;
 *   data_offsets is [begin, end] of safe integers with begin ≤ end; numel(shape) · itemsize = end − begin;
 * - the tensors, sorted by offset, tile the data region exactly: no gap, no overlap, and the last one
 *   ends where the file ends. This is the rule the reference implementation enforces, so a file
 *   faultline accepts is one torch/safetensors accept, and no byte of the file is unaccounted for.
 * Unknown extra fields inside a tensor entry are ignored. A name repeated in the JSON is not
 * detected (JSON.parse keeps the last); the tiling rule then fails for the lost one's bytes.
 */
import { UserError } from '../core/errors.js';
import type { ByteSource } from './byte-source.js';
import { ALL_DTYPES, dtypeInfo, isDType, type DType } from './dtypes.js';

export const MAX_HEADER_BYTES = 100_000_000;
const CODE = 'E_SAFETENSORS';

export interface SafetensorsEntry {
  name: string;
  dtype: DType;
  shape: number[];
  /** Byte offsets relative to the start of the data region. */
  begin: number;
  end: number;
}

export interface SafetensorsHeader {
  headerLength: number;
  /** Absolute file offset of the data region: 8 + headerLength. */
  dataStart: number;
  /** Sorted by begin offset. */
  entries: SafetensorsEntry[];
  metadata: Record<string, string>;
}

// Dtypes the format defines that faultline does not read; named so the error can say so.
const KNOWN_UNSUPPORTED = new Set([
  'F8_E8M0',
  'F4',
  'F6_E2M3',
  'F6_E3M2',
  'C64',
  'F8_E4M3FNUZ',
  'F8_E5M2FNUZ',
]);

function fail(src: ByteSource, message: string, hint?: string): never {
  throw new UserError(`${src.name}: ${message}`, {
    code: CODE,
    hint: hint ?? 'the file is not a valid safetensors file (truncated, corrupted, or another format)',
  });
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function checkShape(src: ByteSource, name: string, shape: unknown): number[] {
  if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && (d as number) >= 0)) {
    fail(
      src,
      `tensor "${name}": shape must be an array of non-negative integers, got ${JSON.stringify(shape)}`,
    );
  }
  return shape as number[];
}

function byteSize(src: ByteSource, name: string, dtype: DType, shape: number[]): number {
  let n = dtypeInfo(dtype).itemSize;
  for (const d of shape) {
    n *= d;
    if (!Number.isSafeInteger(n))
      fail(src, `tensor "${name}": shape [${shape.join(', ')}] is impossibly large`);
  }
  return n;
}

function parseEntry(src: ByteSource, name: string, raw: unknown): SafetensorsEntry {
  if (!isPlainObject(raw))
    fail(src, `tensor "${name}": entry must be an object with dtype, shape and data_offsets`);
  const { dtype, shape, data_offsets: offsets } = raw;
  if (!isDType(dtype)) {
    const what = typeof dtype === 'string' && KNOWN_UNSUPPORTED.has(dtype) ? 'unsupported' : 'unknown';
    fail(
      src,
      `tensor "${name}": ${what} dtype ${JSON.stringify(dtype)}`,
      `faultline reads ${ALL_DTYPES.join(', ')}`,
    );
  }
  const dims = checkShape(src, name, shape);
  if (
    !Array.isArray(offsets) ||
    offsets.length !== 2 ||
    !offsets.every((o) => Number.isSafeInteger(o) && (o as number) >= 0)
  ) {
    fail(
      src,
      `tensor "${name}": data_offsets must be [begin, end] of non-negative integers, got ${JSON.stringify(offsets)}`,
    );
  }
  const [begin, end] = offsets as [number, number];
  if (begin > end) fail(src, `tensor "${name}": data_offsets [${begin}, ${end}] end before they begin`);
  const need = byteSize(src, name, dtype, dims);
  if (need !== end - begin) {
    fail(
      src,
      `tensor "${name}": ${dtype} [${dims.join(', ')}] needs ${need} bytes but data_offsets [${begin}, ${end}] span ${end - begin}`,
    );
  }
  return { name, dtype, shape: dims, begin, end };
}

function parseMetadata(src: ByteSource, raw: unknown): Record<string, string> {
  if (!isPlainObject(raw)) fail(src, '"__metadata__" must be an object of string values');
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(raw)) {
    if (typeof v !== 'string')
      fail(src, `"__metadata__" value for "${k}" must be a string, got ${JSON.stringify(v)}`);
    out[k] = v;
  }
  return out;
}

function checkTiling(src: ByteSource, entries: SafetensorsEntry[], dataLength: number): void {
  let expected = 0;
  let previous: SafetensorsEntry | undefined;
  for (const e of entries) {
    if (e.begin < expected) {
      fail(src, `tensors "${previous?.name}" and "${e.name}" overlap (byte ${e.begin} < ${expected})`);
    }
    if (e.begin > expected) {
      fail(
        src,
        `bytes [${expected}, ${e.begin}) of the data region belong to no tensor (gap before "${e.name}")`,
      );
    }
    expected = e.end;
    previous = e;
  }
  if (expected > dataLength) {
    fail(
      src,
      `tensor "${previous?.name}" ends at data byte ${expected} but the file holds only ${dataLength} data bytes`,
      'the file is truncated or its header lies about the offsets',
    );
  }
  if (expected < dataLength) {
    fail(src, `${dataLength - expected} bytes after the last tensor belong to no tensor`);
  }
}

export function readSafetensorsHeader(src: ByteSource): SafetensorsHeader {
  if (src.size < 8)
    fail(src, `only ${src.size} bytes long; a safetensors file starts with an 8-byte header length`);
  const lengthField = new DataView(src.read(0, 8).buffer).getBigUint64(0, true);
  if (lengthField > BigInt(MAX_HEADER_BYTES)) {
    fail(src, `header length ${lengthField} exceeds the ${MAX_HEADER_BYTES}-byte cap`);
  }
  const headerLength = Number(lengthField);
  if (8 + headerLength > src.size) {
    fail(src, `header length ${headerLength} is larger than the rest of the file (${src.size - 8} bytes)`);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(src.read(8, headerLength));
  } catch {
    fail(src, 'header is not valid UTF-8');
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    fail(src, `header is not valid JSON (${(e as Error).message})`);
  }
  if (!isPlainObject(json)) fail(src, 'header must be a JSON object');
  let metadata: Record<string, string> = Object.create(null) as Record<string, string>;
  const entries: SafetensorsEntry[] = [];
  for (const [name, raw] of Object.entries(json)) {
    if (name === '__metadata__') metadata = parseMetadata(src, raw);
    else entries.push(parseEntry(src, name, raw));
  }
  entries.sort((a, b) => a.begin - b.begin || a.end - b.end);
  const dataStart = 8 + headerLength;
  checkTiling(src, entries, src.size - dataStart);
  return { headerLength, dataStart, entries, metadata };
}
