// Fuzzing: mutated, truncated and invented safetensors files must give a result or a UserError,
// never another exception, and the parser must never ask for bytes the file does not have (the
// counting source throws a plain Error on such a read, which would fail these properties).
import { test } from 'node:test';
import fc from 'fast-check';
import { isUserError } from '../core/errors.js';
import { ALL_DTYPES } from './dtypes.js';
import { sampleTensors } from './sample-tensors.js';
import { openSafetensorsSource, serializeSafetensors } from './safetensors.js';
import { countingSource } from './test-sources.js';

const valid = serializeSafetensors(sampleTensors(), { format: 'pt' });

function parsesOrUserError(bytes: Uint8Array): boolean {
  const src = countingSource(bytes);
  try {
    const f = openSafetensorsSource(src);
    for (const name of f.names) f.read(name);
    return src.bytesRead() <= 2 * bytes.length + 8;
  } catch (e) {
    if (isUserError(e)) return true;
    throw e;
  }
}

test('fuzz: byte flips, truncations and splices of a valid file', () => {
  const mutation = fc.oneof(
    fc.record({
      kind: fc.constant('flip' as const),
      at: fc.nat(valid.length - 1),
      value: fc.integer({ min: 0, max: 255 }),
    }),
    fc.record({ kind: fc.constant('truncate' as const), at: fc.nat(valid.length) }),
    fc.record({
      kind: fc.constant('insert' as const),
      at: fc.nat(valid.length),
      bytes: fc.uint8Array({ maxLength: 16 }),
    }),
  );
  fc.assert(
    fc.property(fc.array(mutation, { minLength: 1, maxLength: 4 }), (muts) => {
      let b = Uint8Array.from(valid);
      for (const m of muts) {
        const at = Math.min(m.at, b.length);
        if (m.kind === 'flip' && at < b.length) b[at] = m.value;
        else if (m.kind === 'truncate') b = b.slice(0, at);
        else if (m.kind === 'insert')
          b = Uint8Array.from([...b.subarray(0, at), ...m.bytes, ...b.subarray(at)]);
      }
      return parsesOrUserError(b);
    }),
    { numRuns: 1500 },
  );
});

test('fuzz: a lying header length never causes a read past the file', () => {
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), (n) => {
      const b = Uint8Array.from(valid);
      new DataView(b.buffer).setBigUint64(0, n, true);
      return parsesOrUserError(b);
    }),
    { numRuns: 500 },
  );
});

test('fuzz: invented headers (random dtypes, shapes, offsets, metadata) over random data lengths', () => {
  const dim = fc.oneof(fc.nat(8), fc.integer({ min: -3, max: 2 ** 31 }), fc.constant(2 ** 53), fc.double());
  const entry = fc.record(
    {
      dtype: fc.oneof(fc.constantFrom(...ALL_DTYPES), fc.string({ maxLength: 6 })),
      shape: fc.oneof(fc.array(dim, { maxLength: 4 }), fc.anything()),
      data_offsets: fc.oneof(
        fc.tuple(fc.nat(64), fc.nat(64)),
        fc.array(fc.integer({ min: -5, max: 2 ** 40 }), { maxLength: 3 }),
        fc.anything(),
      ),
    },
    { requiredKeys: [] },
  );
  const header = fc.dictionary(
    fc.oneof(fc.string({ maxLength: 5 }), fc.constant('__metadata__'), fc.constant('__proto__')),
    fc.oneof(entry, fc.anything()),
    { maxKeys: 5 },
  );
  fc.assert(
    fc.property(header, fc.nat(128), (h, dataLength) => {
      const json = new TextEncoder().encode(JSON.stringify(h));
      const b = new Uint8Array(8 + json.length + dataLength);
      new DataView(b.buffer).setBigUint64(0, BigInt(json.length), true);
      b.set(json, 8);
      return parsesOrUserError(b);
    }),
    { numRuns: 1500 },
  );
});
