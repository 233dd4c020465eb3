/**
 * Test support: an in-memory byte source that records every read and refuses reads outside the
 * data, so tests can assert that a parser never asks for more than the file holds (a lying header
 * must not cause a large allocation) and that one tensor is read without the rest.
 */
import { memorySource, type ByteSource } from './byte-source.js';

export interface CountingSource extends ByteSource {
  reads: { offset: number; length: number }[];
  bytesRead(): number;
}

export function countingSource(bytes: Uint8Array, name = '<memory>'): CountingSource {
  const inner = memorySource(bytes, name);
  const reads: { offset: number; length: number }[] = [];
  return {
    name,
    size: inner.size,
    reads,
    bytesRead: () => reads.reduce((s, r) => s + r.length, 0),
    read(offset, length) {
      if (!(offset >= 0 && length >= 0 && offset + length <= inner.size)) {
        throw new Error(`read outside the source: [${offset}, ${offset + length}) of ${inner.size}`);
      }
      reads.push({ offset, length });
      return inner.read(offset, length);
    },
    close() {},
  };
}
