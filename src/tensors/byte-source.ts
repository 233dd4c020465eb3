/**
 * Positional reads from a file or from memory, so a tensor file can be parsed without loading it
 * whole. Every read returns a fresh, exclusively owned Uint8Array whose buffer starts at offset 0,
 * so typed arrays of any item size can be laid over it without alignment trouble.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { UserError } from '../core/errors.js';

export interface ByteSource {
  /** For messages: the file path, or a label for in-memory data. */
  readonly name: string;
  readonly size: number;
  /** Exactly `length` bytes at `offset`; the caller has checked that the range lies inside `size`. */
  read(offset: number, length: number): Uint8Array;
  close(): void;
}

export function openFileSource(path: string, code: string): ByteSource {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const what =
      err.code === 'ENOENT'
        ? 'no such file'
        : err.code === 'EISDIR'
          ? 'is a directory'
          : (err.code ?? err.message);
    throw new UserError(`cannot open ${path}: ${what}`, { code, hint: 'check the path', cause: e });
  }
  let size: number;
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new UserError(`${path} is not a regular file`, { code });
    size = st.size;
  } catch (e) {
    closeSync(fd);
    throw e;
  }
  let open = true;
  return {
    name: path,
    size,
    read(offset, length) {
      if (!open) throw new Error(`${path}: read after close`);
      const out = new Uint8Array(length);
      let done = 0;
      while (done < length) {
        const n = readSync(fd, out, done, length - done, offset + done);
        if (n === 0)
          throw new UserError(`${path} ended early (was it truncated while being read?)`, { code });
        done += n;
      }
      return out;
    },
    close() {
      if (open) closeSync(fd);
      open = false;
    },
  };
}

export function memorySource(bytes: Uint8Array, name = '<memory>'): ByteSource {
  return {
    name,
    size: bytes.length,
    read(offset, length) {
      return bytes.slice(offset, offset + length); // a copy with its own, aligned buffer
    },
    close() {},
  };
}
