/**
 * Reads a GGUF file's header and metadata (not its tensor data): enough to refuse a file that is
 * not a GGUF, or one llama.cpp would misread, with the reason, before anything is loaded. Every
 * length is checked against the file, so a truncated or hostile header is an error, not a crash.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { UserError } from '../core/errors.js';
import { GGUF_MAGIC, ValueType } from './format.js';

export type MetadataValue = number | bigint | boolean | string | MetadataValue[];

export interface GgufHeader {
  version: number;
  tensorCount: number;
  metadata: Map<string, MetadataValue>;
}

/** Header bytes read at most: metadata beyond this (vocabularies of millions of tokens) is refused. */
const MAX_HEADER_BYTES = 64 << 20;
/** The first read; the buffer doubles as the header needs more, so a 40 GB model costs a few MiB. */
const FIRST_READ = 256 << 10;

/**
 * Reads the file on demand: only the bytes the header declares are read, never the tensor data, and
 * never more than MAX_HEADER_BYTES. Every length is checked against what the file can still hold.
 */
class Cursor {
  at = 0;
  private buf = Buffer.alloc(0);
  /** The header cannot extend past this: the file's end or MAX_HEADER_BYTES, whichever comes first. */
  readonly limit: number;
  constructor(
    private readonly fd: number,
    private readonly fileSize: number,
    private readonly fail: (why: string) => never,
  ) {
    this.limit = Math.min(fileSize, MAX_HEADER_BYTES);
  }
  need(n: number): void {
    const end = this.at + n;
    if (end <= this.buf.length) return;
    if (end > this.limit)
      this.fail(
        end > MAX_HEADER_BYTES && this.fileSize > MAX_HEADER_BYTES
          ? `its metadata runs past the first ${MAX_HEADER_BYTES >> 20} MiB, more than faultline reads of a header (a hostile or damaged header)`
          : 'the header ends before its declared contents (truncated, or not a GGUF)',
      );
    let size = Math.max(FIRST_READ, this.buf.length * 2);
    while (size < end) size *= 2;
    size = Math.min(size, this.limit);
    const next = Buffer.alloc(size);
    this.buf.copy(next);
    let got = this.buf.length;
    while (got < size) {
      const n = readSync(this.fd, next, got, size - got, got);
      if (n === 0) break;
      got += n;
    }
    this.buf = got === size ? next : next.subarray(0, got);
    if (end > this.buf.length)
      this.fail('the header ends before its declared contents (truncated, or not a GGUF)');
  }
  u8 = () => (this.need(1), this.buf.readUInt8(this.at++));
  u32 = () => (this.need(4), (this.at += 4), this.buf.readUInt32LE(this.at - 4));
  i32 = () => (this.need(4), (this.at += 4), this.buf.readInt32LE(this.at - 4));
  f32 = () => (this.need(4), (this.at += 4), this.buf.readFloatLE(this.at - 4));
  f64 = () => (this.need(8), (this.at += 8), this.buf.readDoubleLE(this.at - 8));
  u64 = () => (this.need(8), (this.at += 8), this.buf.readBigUInt64LE(this.at - 8));
  i64 = () => (this.need(8), (this.at += 8), this.buf.readBigInt64LE(this.at - 8));
  latin1(n: number): string {
    this.need(n);
    this.at += n;
    return this.buf.toString('latin1', this.at - n, this.at);
  }
  count(what = 'a count'): number {
    const n = this.u64();
    // every element takes at least one byte, so a count beyond the bytes left cannot be right
    if (n > BigInt(this.limit - this.at))
      this.fail(`${what} of ${n} runs past the end of the header (truncated, hostile, or not a GGUF)`);
    return Number(n);
  }
  string(): string {
    const n = this.count('a string length');
    this.need(n);
    this.at += n;
    return this.buf.toString('utf8', this.at - n, this.at);
  }
}

function readValue(c: Cursor, type: number, fail: (why: string) => never): MetadataValue {
  switch (type) {
    case ValueType.UINT8:
      return c.u8();
    case ValueType.INT8:
      return (c.u8() << 24) >> 24;
    case ValueType.UINT16:
      return c.u8() | (c.u8() << 8);
    case ValueType.INT16:
      return ((c.u8() | (c.u8() << 8)) << 16) >> 16;
    case ValueType.UINT32:
      return c.u32();
    case ValueType.INT32:
      return c.i32();
    case ValueType.FLOAT32:
      return c.f32();
    case ValueType.BOOL:
      return c.u8() !== 0;
    case ValueType.STRING:
      return c.string();
    case ValueType.UINT64:
      return c.u64();
    case ValueType.INT64:
      return c.i64();
    case ValueType.FLOAT64:
      return c.f64();
    case ValueType.ARRAY: {
      const inner = c.u32();
      const n = c.count('an array length');
      const out: MetadataValue[] = [];
      for (let i = 0; i < n; i++) out.push(readValue(c, inner, fail));
      return out;
    }
    default:
      return fail(`unknown metadata value type ${type}`);
  }
}

/**
 * The header of the GGUF at `path`; `flag` names the option it came from and `hint` replaces the
 * default hint of the UserError that a file which is not a readable GGUF gives.
 */
export function readGgufHeader(path: string, flag = '--model', hint?: string): GgufHeader {
  const fail = (why: string): never => {
    throw new UserError(`${path} is not a GGUF file llama.cpp can read: ${why}`, {
      code: 'E_MODEL',
      hint:
        hint ??
        `pass a GGUF file to ${flag}; \`faultline engine export-gguf --model DIR --out FILE.gguf\` writes one from a faultline model directory`,
    });
  };
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new UserError(`${path} does not exist`, { code: 'E_MODEL', hint: `pass a GGUF file to ${flag}` });
  }
  if (!st.isFile())
    fail(
      'it is not a file (a faultline model directory is served by the faultline runtime, or exported with `faultline engine export-gguf`)',
    );
  const fd = openSync(path, 'r');
  try {
    const c = new Cursor(fd, st.size, fail);
    if (st.size < 4 || c.latin1(4) !== GGUF_MAGIC) fail(`it does not start with the magic "${GGUF_MAGIC}"`);
    const version = c.u32();
    if (version < 2 || version > 3) fail(`GGUF version ${version} (llama.cpp reads versions 2 and 3)`);
    const tensorCount = c.count('a tensor count');
    const kvCount = c.count('a metadata count');
    const metadata = new Map<string, MetadataValue>();
    for (let i = 0; i < kvCount; i++) {
      const key = c.string();
      metadata.set(key, readValue(c, c.u32(), fail));
    }
    return { version, tensorCount, metadata };
  } finally {
    closeSync(fd);
  }
}
