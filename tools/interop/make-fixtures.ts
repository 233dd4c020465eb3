// Writes the faultline-side interop fixtures: test/fixtures/tensors/faultline/*.safetensors and,
// beside each, <name>.expected.json with what Python's safetensors + torch must find in it
// (dtype, shape, raw bytes as hex, and the values faultline decodes). Run from the repository root:
//   node --import tsx tools/interop/make-fixtures.ts
// tools/interop/check_safetensors.py then checks those files on a machine with torch.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sampleTensors } from '../../src/tensors/sample-tensors.js';
import { serializeSafetensors } from '../../src/tensors/safetensors.js';
import { tensorBytes, toFloat32, type Tensor } from '../../src/tensors/tensor.js';
import { dtypeInfo } from '../../src/tensors/dtypes.js';

const OUT = join('test', 'fixtures', 'tensors', 'faultline');

/** Values as strings Python's float()/int() parse exactly: "nan", "inf", "-inf", "-0", repr otherwise. */
function valueStrings(t: Tensor): string[] {
  const kind = dtypeInfo(t.dtype).kind;
  if (kind !== 'float') return Array.from(t.data as ArrayLike<number | bigint>, (v) => String(v));
  const values = t.dtype === 'F64' ? Array.from(t.data as Float64Array) : Array.from(toFloat32(t));
  return values.map((v) =>
    Number.isNaN(v)
      ? 'nan'
      : Object.is(v, -0)
        ? '-0'
        : v === Infinity
          ? 'inf'
          : v === -Infinity
            ? '-inf'
            : String(v),
  );
}

function expectation(tensors: Record<string, Tensor>, metadata: Record<string, string> | undefined) {
  const out: Record<string, unknown> = {};
  for (const [name, t] of Object.entries(tensors)) {
    out[name] = {
      dtype: t.dtype,
      shape: t.shape,
      hex: Buffer.from(tensorBytes(t)).toString('hex'),
      values: valueStrings(t),
    };
  }
  return { metadata: metadata ?? null, tensors: out };
}

function write(name: string, tensors: Record<string, Tensor>, metadata?: Record<string, string>): void {
  writeFileSync(join(OUT, `${name}.safetensors`), serializeSafetensors(tensors, metadata));
  writeFileSync(
    join(OUT, `${name}.expected.json`),
    `${JSON.stringify(expectation(tensors, metadata), null, 1)}\n`,
  );
}

mkdirSync(OUT, { recursive: true });
write('all-dtypes', sampleTensors(), { format: 'pt', writer: 'faultline', note: 'ünïcode ✓' });
write('no-tensors', {}, { writer: 'faultline' });
write('no-metadata', { x: sampleTensors().bf16 });
console.log(`wrote 3 files (+ expectations) to ${OUT}`);
