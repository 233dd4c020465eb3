/**
 * `--model-config FILE.gguf`: the model facts come from the GGUF header alone (the tensor data is
 * never read), in the shape config.json gives them; a header that is not a readable GGUF is a
 * UserError with a hint, never a crash or an allocation the size its counts claim.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../core/errors.js';
import { readModelFacts } from '../deployment/model-config.js';
import { loadModel } from '../engine/load-model.js';
import { exportGemma3 } from './gemma3-export.js';
import { str, u32, type GgufValue } from './format.js';
import { ggufModelFacts } from './model-facts.js';
import { serializeGguf } from './writer.js';

const repo = new URL('../../', import.meta.url).pathname;

function inTmp<T>(run: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-gguf-facts-'));
  try {
    return run(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const header = (entries: [string, GgufValue][]) => serializeGguf(new Map(entries), []);

function userError(run: () => unknown, why: RegExp): void {
  assert.throws(run, (e: unknown) => {
    assert.ok(e instanceof UserError, `a UserError, not ${String(e)}`);
    assert.match(e.message, why);
    assert.match(e.hint ?? '', /--model-config/);
    return true;
  });
}

test('a GGUF from `engine export-gguf` (tiny-swa as gemma3): the same layers, window and heads as its config.json', () => {
  const m = loadModel(join(repo, 'models/tiny-swa'));
  const e = exportGemma3(m, 'tiny-swa', 'f32');
  inTmp((dir) => {
    const path = join(dir, 'tiny-swa.gguf');
    writeFileSync(path, serializeGguf(e.metadata, e.tensors));
    const g = readModelFacts(path);
    const hf = readModelFacts(join(repo, 'models/tiny-swa/config.json'));
    assert.equal(g.format, 'gguf');
    assert.equal(g.modelType, 'gemma3');
    assert.equal(g.source, path);
    assert.deepEqual(g.layers, hf.layers, 'five sliding layers, then one full');
    assert.equal(g.window, 128);
    assert.equal(g.window, hf.window);
    assert.deepEqual(g.attention, {
      headCount: 4,
      headCountKv: 2,
      keyLength: 64,
      valueLength: 64,
      kvLayout: 'gqa',
    });
    assert.deepEqual(g.attention, hf.attention);
    assert.equal(g.contextLength, hf.contextLength);
  });
});

test('the layer pattern as llama.cpp reads it: a period, one bool per layer, the architecture default, none', () => {
  inTmp((dir) => {
    const write = (name: string, entries: [string, GgufValue][]) => {
      const p = join(dir, name);
      writeFileSync(p, header(entries));
      return p;
    };
    const base = (arch: string, n: number): [string, GgufValue][] => [
      ['general.architecture', str(arch)],
      [`${arch}.block_count`, u32(n)],
      [`${arch}.embedding_length`, u32(1024)],
      [`${arch}.attention.head_count`, u32(8)],
    ];
    // gemma3 without the pattern key: period 6
    const g3 = ggufModelFacts(
      write('g3.gguf', [...base('gemma3', 12), ['gemma3.attention.sliding_window', u32(512)]]),
    );
    assert.deepEqual(g3.layers.map((k) => k[0]).join(''), 'sssssfsssssf');
    assert.equal(g3.window, 512);
    assert.equal(g3.attention?.keyLength, 128, 'embedding_length / head_count');
    assert.equal(g3.attention?.kvLayout, 'mha', 'head_count_kv defaults to head_count');
    assert.match(g3.notes.join(' '), /period 6/);
    // gemma3 with no window: no sliding layers at all
    const g3full = ggufModelFacts(write('g3f.gguf', base('gemma3', 4)));
    assert.deepEqual(g3full.layers, ['full', 'full', 'full', 'full']);
    assert.equal(g3full.window, undefined);
    // an architecture with a window, no pattern key and no default in llama.cpp's code
    const g4path = join(dir, 'g4.gguf');
    writeFileSync(
      g4path,
      header([
        ...base('gemma4', 3),
        ['gemma4.attention.sliding_window', u32(1024)],
        ['gemma4.attention.head_count_kv', u32(1)],
        ['gemma4.attention.key_length', u32(80)],
      ]),
    );
    const g4 = ggufModelFacts(g4path);
    assert.deepEqual(
      g4.layers,
      ['sliding', 'sliding', 'sliding'],
      'no pattern, no default: every layer, with a note',
    );
    assert.match(g4.notes.join(' '), /every layer/);
    assert.equal(g4.attention?.keyLength, 80);
    assert.equal(g4.attention?.kvLayout, 'mqa');
    // a period of 0: every layer slides; a period of 2 (gpt-oss's default)
    const p0 = ggufModelFacts(
      write('p0.gguf', [
        ...base('x', 3),
        ['x.attention.sliding_window', u32(64)],
        ['x.attention.sliding_window_pattern', u32(0)],
      ]),
    );
    assert.deepEqual(p0.layers, ['sliding', 'sliding', 'sliding']);
    const oss = ggufModelFacts(
      write('oss.gguf', [...base('gpt-oss', 4), ['gpt-oss.attention.sliding_window', u32(128)]]),
    );
    assert.deepEqual(oss.layers, ['sliding', 'full', 'sliding', 'full']);
    // a plain llama: no window, full attention, the trained context
    const llama = ggufModelFacts(
      write('llama.gguf', [
        ...base('llama', 2),
        ['llama.context_length', u32(8192)],
        ['llama.attention.head_count_kv', u32(2)],
      ]),
    );
    assert.deepEqual(llama.layers, ['full', 'full']);
    assert.equal(llama.contextLength, 8192);
    assert.equal(llama.attention?.kvLayout, 'gqa');
  });
});

test('a bool-array pattern: one entry per layer, true = sliding', () => {
  // the writer has no bool[] type; write the array by hand: type ARRAY (9) of BOOL (7)
  inTmp((dir) => {
    const p = join(dir, 'b.gguf');
    const kv: Buffer[] = [];
    const s = (x: string) => {
      const b = Buffer.alloc(8 + Buffer.byteLength(x));
      b.writeBigUInt64LE(BigInt(Buffer.byteLength(x)));
      b.write(x, 8);
      return b;
    };
    const u32b = (n: number) => {
      const b = Buffer.alloc(4);
      b.writeUInt32LE(n);
      return b;
    };
    const u64b = (n: number) => {
      const b = Buffer.alloc(8);
      b.writeBigUInt64LE(BigInt(n));
      return b;
    };
    kv.push(s('general.architecture'), u32b(8), s('gemma4'));
    kv.push(s('gemma4.block_count'), u32b(4), u32b(4));
    kv.push(s('gemma4.attention.sliding_window'), u32b(4), u32b(512));
    kv.push(
      s('gemma4.attention.sliding_window_pattern'),
      u32b(9),
      u32b(7),
      u64b(4),
      Buffer.from([1, 1, 1, 0]),
    );
    writeFileSync(p, Buffer.concat([Buffer.from('GGUF'), u32b(3), u64b(0), u64b(4), ...kv]));
    assert.deepEqual(ggufModelFacts(p).layers, ['sliding', 'sliding', 'sliding', 'full']);
  });
});

test('a truncated, hostile or foreign header is a UserError with a hint, never a crash or a huge allocation', () => {
  const m = loadModel(join(repo, 'models/tiny-swa'));
  const whole = Buffer.from(serializeGguf(exportGemma3(m, 't', 'f32').metadata, []));
  inTmp((dir) => {
    const file = (name: string, bytes: Uint8Array) => {
      const p = join(dir, name);
      writeFileSync(p, bytes);
      return p;
    };
    userError(() => readModelFacts(file('magic.gguf', Buffer.from('GGML....'))), /magic "GGUF"/);
    userError(() => readModelFacts(file('short.gguf', whole.subarray(0, 41))), /truncated/);
    userError(() => readModelFacts(file('tiny.gguf', Buffer.from('GG'))), /magic/);
    // a metadata count of 2^63: refused by the bytes left, not looped over
    const huge = Buffer.from(whole);
    huge.writeBigUInt64LE(1n << 63n, 16);
    userError(() => readModelFacts(file('count.gguf', huge)), /metadata count of 9223372036854775808/);
    // a string length of 2^40 in the first key
    const len = Buffer.from(whole);
    len.writeBigUInt64LE(1n << 40n, 24);
    userError(() => readModelFacts(file('len.gguf', len)), /string length of 1099511627776/);
    // a hostile block count
    const blocks = file(
      'blocks.gguf',
      header([
        ['general.architecture', str('llama')],
        ['llama.block_count', u32(4_000_000_000)],
      ]),
    );
    userError(() => readModelFacts(blocks), /more layers than any model/);
    userError(() => readModelFacts(file('noarch.gguf', header([['x', u32(1)]]))), /general.architecture/);
    userError(
      () =>
        readModelFacts(
          file(
            'pattern.gguf',
            header([
              ['general.architecture', str('gemma3')],
              ['gemma3.block_count', u32(6)],
              ['gemma3.attention.sliding_window', u32(8)],
              ['gemma3.attention.head_count', { type: 'i32[]', value: [1, 2] }],
            ]),
          ),
        ),
      /2 entries for 6 layers/,
    );
    // a GGUF named anything else is recognised by its magic
    const renamed = file('model.bin', whole);
    assert.equal(readModelFacts(renamed).format, 'gguf');
  });
});

test('a large GGUF: only the header is read (a sparse 3 GiB file with a small header reads at once)', () => {
  const m = loadModel(join(repo, 'models/tiny-swa'));
  const meta = Buffer.from(serializeGguf(exportGemma3(m, 't', 'f32').metadata, []));
  inTmp((dir) => {
    const p = join(dir, 'big.gguf');
    const fd = openSync(p, 'w');
    try {
      writeSync(fd, meta, 0, meta.length, 0);
      writeSync(fd, Buffer.from([0]), 0, 1, 3 * 2 ** 30); // sparse: the file claims 3 GiB
    } finally {
      closeSync(fd);
    }
    const before = process.memoryUsage().arrayBuffers;
    const started = performance.now();
    const f = readModelFacts(p);
    assert.equal(f.window, 128);
    assert.ok(performance.now() - started < 2000, 'read in well under two seconds');
    assert.ok(process.memoryUsage().arrayBuffers - before < 64 << 20, 'less than 64 MiB of buffers');
  });
});
