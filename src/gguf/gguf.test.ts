import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../core/errors.js';
import { f16BitsToF32 } from '../numerics/fp16.js';
import { randomModel, tinyConfig } from '../engine/testing/random-init.js';
import { gpt2ByteCharacters } from './byte-vocabulary.js';
import { encodeTensor } from './encode-tensor.js';
import { f32, str, u32 } from './format.js';
import { exportGemma3, slidingPattern } from './gemma3-export.js';
import { readGgufHeader } from './reader.js';
import { serializeGguf } from './writer.js';

function withFile<T>(bytes: Uint8Array, run: (path: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-gguf-'));
  try {
    const path = join(dir, 'm.gguf');
    writeFileSync(path, bytes);
    return run(path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a written GGUF reads back: magic, version 3, metadata of each type, tensor count, data at aligned offsets', () => {
  const meta = new Map([
    ['general.architecture', str('gemma3')],
    ['general.alignment', u32(32)],
    ['x.eps', f32(1e-6)],
    ['x.tokens', { type: 'string[]' as const, value: ['a', 'ü', ''] }],
    ['x.types', { type: 'i32[]' as const, value: [1, -3] }],
    ['x.flag', { type: 'bool' as const, value: true }],
  ]);
  const a = encodeTensor(Float32Array.from([1, 2, 3]), 'F32');
  const b = encodeTensor(Float32Array.from([4, 5]), 'F32');
  const bytes = serializeGguf(meta, [
    { name: 'a', dims: [3], type: 'F32', data: a },
    { name: 'b', dims: [2], type: 'F32', data: b },
  ]);
  assert.equal(Buffer.from(bytes.subarray(0, 4)).toString('latin1'), 'GGUF');
  assert.equal(bytes.length % 32, 0, 'the file ends on the alignment');
  // the last tensor's 8 bytes sit at the end, before its padding
  const tail = new Float32Array(bytes.buffer.slice(bytes.length - 32, bytes.length - 24));
  assert.deepEqual([...tail], [4, 5]);
  withFile(bytes, (path) => {
    const h = readGgufHeader(path);
    assert.equal(h.version, 3);
    assert.equal(h.tensorCount, 2);
    assert.equal(h.metadata.get('general.architecture'), 'gemma3');
    assert.equal(h.metadata.get('general.alignment'), 32);
    assert.equal(h.metadata.get('x.eps'), Math.fround(1e-6));
    assert.deepEqual(h.metadata.get('x.tokens'), ['a', 'ü', '']);
    assert.deepEqual(h.metadata.get('x.types'), [1, -3]);
    assert.equal(h.metadata.get('x.flag'), true);
  });
});

test('the reader refuses what is not a GGUF, and a truncated header, as UserErrors with the reason', () => {
  withFile(new TextEncoder().encode('PK\u0003\u0004 a zip'), (path) =>
    assert.throws(
      () => readGgufHeader(path),
      (e: unknown) =>
        e instanceof UserError && /magic "GGUF"/.test(e.message) && /export-gguf/.test(e.hint ?? ''),
    ),
  );
  const whole = serializeGguf(new Map([['general.name', str('x'.repeat(100))]]), []);
  withFile(whole.subarray(0, 60), (path) => assert.throws(() => readGgufHeader(path), /truncated/));
  withFile(new Uint8Array([0x47, 0x47, 0x55, 0x46, 9, 0, 0, 0]), (path) =>
    assert.throws(() => readGgufHeader(path), /version 9/),
  );
});

test('Q8_0: blocks of 32 as an FP16 scale max|x|/127 and int8 round(x / scale), rounding halves away from zero', () => {
  const x = Float32Array.from({ length: 32 }, (_, i) => (i - 16) / 4); // max |x| = 4 at i = 0
  const q = encodeTensor(x, 'Q8_0');
  assert.equal(q.length, 34);
  const d = f16BitsToF32(q[0] | (q[1] << 8));
  assert.ok(Math.abs(d - 4 / 127) < 1e-5);
  const qs = new Int8Array(q.buffer, 2, 32);
  assert.equal(qs[0], -127);
  for (let i = 0; i < 32; i++) assert.ok(Math.abs(qs[i] * d - x[i]) <= d / 2 + 1e-6, `value ${i}`);
  assert.throws(() => encodeTensor(new Float32Array(31), 'Q8_0'), /multiple of 32/);
});

test("GPT-2's byte characters: printable bytes stand for themselves, the rest shift above 255 in byte order", () => {
  const c = gpt2ByteCharacters();
  assert.equal(new Set(c).size, 256);
  assert.equal(c[0x41], 'A');
  assert.equal(c[0x20], '\u0120'); // space: the familiar "Ġ"
  assert.equal(c[0x0a], '\u010a'); // newline: "Ċ"
  assert.equal(c[0x00], '\u0100');
});

test('gemma3 export: sliding period, tensor names and shapes, norms with +1 folded in, refusals with reasons', () => {
  const m = randomModel(tinyConfig(), { seed: 1 });
  assert.equal(slidingPattern(m.config), 3);
  const e = exportGemma3(m, 't', 'bf16');
  assert.equal(e.tensors.length, 2 + 13 * m.config.numLayers);
  const byName = new Map(e.tensors.map((t) => [t.name, t]));
  assert.deepEqual(byName.get('token_embd.weight')?.dims, [64, 258]);
  assert.deepEqual(byName.get('blk.0.ffn_down.weight')?.dims, [128, 64]);
  assert.equal(byName.get('blk.0.attn_q.weight')?.type, 'BF16');
  const norm = new Float32Array(byName.get('blk.1.attn_k_norm.weight')!.data.buffer.slice(0));
  assert.deepEqual(
    [...norm],
    [...m.weights.layers[1].kNorm].map((w) => Math.fround(w + 1)),
  );
  assert.deepEqual(e.metadata.get('gemma3.attention.sliding_window_pattern'), u32(3));
  const refuse = (over: Parameters<typeof tinyConfig>[0], why: RegExp) =>
    assert.throws(() => exportGemma3(randomModel(tinyConfig(over), { seed: 1 }), 't', 'f32'), why);
  refuse({ finalLogitSoftcap: 30 }, /softcap/);
  refuse({ queryPreAttnScalar: 32 }, /query_pre_attn_scalar 32 ≠ head_dim 16/);
  refuse({ layerTypes: ['full', 'sliding', 'sliding'] }, /follow no period/);
  refuse({ vocabSize: 300 }, /not the byte vocabulary/);
});
