/**
 * The dump format: round trips, and hostile dumps (wrong shapes, lying headers, out-of-range block
 * tables, non-finite inputs, corrupted bytes) end in a UserError that names the file, never a crash.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { UserError } from '../core/errors.js';
import { createRng } from '../core/rng.js';
import { serializeSafetensors } from '../tensors/safetensors.js';
import { makeTensor, tensorsBitEqual, type Tensor } from '../tensors/tensor.js';
import { dumpContents, parseKernelDump, serializeKernelDump } from './dump-format.js';
import { float32String, parseDumpMeta } from './dump-metadata.js';
import { smallCase } from './testing.js';

const LABEL = 'case.safetensors';

function mutate(edit: (t: Map<string, Tensor>, md: Record<string, string>) => void): () => unknown {
  const { tensors, metadata } = dumpContents(smallCase());
  edit(tensors, metadata);
  const bytes = serializeSafetensors(tensors, metadata);
  return () => parseKernelDump(bytes, LABEL);
}

function rejects(fn: () => unknown, pattern: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof UserError, `expected a UserError, got ${String(e)}`);
    assert.match(e.message, pattern);
    assert.ok(e.message.startsWith(LABEL) || e.message.includes('<memory>') || e.message.includes(LABEL), e.message);
    return true;
  });
}

describe('kernel dump format', () => {
  test('round trip: tensors, metadata and scales survive serialize → parse', () => {
    const d = smallCase({ qDtype: 'fp8_e4m3' });
    const back = parseKernelDump(serializeKernelDump(d), LABEL);
    assert.ok(tensorsBitEqual(back.query, d.query));
    assert.ok(tensorsBitEqual(back.kvCache, d.kvCache));
    assert.deepEqual(back.blockTables, d.blockTables);
    assert.deepEqual(back.seqLens, d.seqLens);
    assert.equal(back.scales.q, d.scales.q);
    assert.equal(back.meta.bmm1Scale, Math.fround(d.meta.bmm1Scale));
    assert.equal(back.meta.extra.preset, 'swa-specdec-sweep');
    assert.deepEqual(back.geometry, { batch: 4, tokens: 32, numHeads: 4, numKvHeads: 2, headDim: 64, numBlocks: 8, maxPages: 6 });
  });

  test('float32String is the shortest decimal that reads back as the same float32', () => {
    for (const x of [0.125, 1 / 3, 0.0011683872, 1e-30, 3.4e38, 7])
      assert.equal(Math.fround(Number(float32String(x))), Math.fround(x));
    assert.equal(float32String(0.1), '0.1');
  });

  test('metadata numbers are parsed strictly', () => {
    const base = { q_len_per_req: '8', window_left: '63', sm_scale: '0.125', bmm1_scale: '0.1', bmm2_scale: '1', q_dtype: 'bf16', kv_dtype: 'fp8_e4m3', out_dtype: 'bf16', page_size: '16' };
    assert.equal(parseDumpMeta(base, LABEL).kvLayout, 'HND');
    const bad: [Record<string, string>, RegExp][] = [
      [{ window_left: '63 ' }, /window_left/],
      [{ window_left: '-2' }, /window_left/],
      [{ q_len_per_req: '0' }, /q_len_per_req/],
      [{ sm_scale: 'NaN' }, /sm_scale/],
      [{ sm_scale: '-1' }, /sm_scale/],
      [{ bmm1_scale: 'Infinity' }, /bmm1_scale/],
      [{ q_dtype: 'fp16' }, /q_dtype/],
      [{ kv_layout: 'hnd' }, /kv_layout/],
      [{ format: 'something-else/9' }, /format/],
    ];
    for (const [over, re] of bad) rejects(() => parseDumpMeta({ ...base, ...over }, LABEL), re);
    const { page_size: _drop, ...missing } = base;
    rejects(() => parseDumpMeta(missing, LABEL), /"page_size" is missing/);
  });

  const hostile: [string, (t: Map<string, Tensor>, md: Record<string, string>) => void, RegExp][] = [
    ['missing query', (t) => t.delete('query'), /no tensor "query"/],
    ['query of rank 2', (t) => t.set('query', makeTensor('BF16', [32, 256])), /query must be \[tokens, heads, head_dim\]/],
    ['header says FP8 query, tensor is BF16', (_t, md) => (md.q_dtype = 'fp8_e4m3'), /q_dtype is fp8_e4m3 but query is BF16/],
    ['header says BF16 cache, tensor is FP8', (_t, md) => (md.kv_dtype = 'bf16'), /kv_dtype is bf16 but kv_cache is F8_E4M3/],
    ['page size lie', (_t, md) => (md.page_size = '32'), /page_size says 32/],
    ['layout lie (NHD for an HND cache)', (_t, md) => (md.kv_layout = 'NHD'), /layout NHD/],
    ['q_len_per_req lie', (_t, md) => (md.q_len_per_req = '4'), /4 requests × q_len_per_req 4/],
    ['kv_cache without the K/V plane', (t) => t.set('kv_cache', makeTensor('F8_E4M3', [9, 1, 2, 16, 64])), /rank 5/],
    ['head_dim disagreement', (t) => t.set('kv_cache', makeTensor('F8_E4M3', [9, 2, 2, 16, 32])), /head_dim 32/],
    ['heads not a multiple of kv heads', (t) => t.set('kv_cache', makeTensor('F8_E4M3', [9, 2, 3, 16, 64])), /multiple of kv heads 3/],
    ['block id out of range', (t) => ((t.get('block_tables')!.data as Int32Array)[0] = 99), /block_tables\[0\]\[0\] = 99/],
    ['negative block id', (t) => ((t.get('block_tables')!.data as Int32Array)[1] = -1), /block_tables\[0\]\[1\] = -1/],
    ['float block table', (t) => t.set('block_tables', makeTensor('F32', [4, 7])), /block_tables must be I32/],
    ['seq_len shorter than the query rows', (t) => ((t.get('seq_lens')!.data as Int32Array)[2] = 3), /seq_len 3 < q_len_per_req 8/],
    ['seq_len beyond the block table', (t) => ((t.get('seq_lens')!.data as Int32Array)[3] = 500), /needs 32 pages/],
    ['block table rows ≠ batch', (t) => t.set('block_tables', makeTensor('I32', [3, 7])), /block_tables must be \[batch = 4/],
    ['output of the wrong shape', (t, md) => (t.set('output', makeTensor('BF16', [32, 4, 32])), (md.out_dtype = 'bf16')), /output \[32, 4, 32\] must have the query's shape/],
    ['output dtype lie', (t, md) => (t.set('output', makeTensor('F32', [32, 4, 64])), (md.out_dtype = 'bf16')), /out_dtype is bf16 but output is F32/],
    ['FP8 output', (t, md) => (t.set('output', makeTensor('F8_E4M3', [32, 4, 64])), (md.out_dtype = 'bf16')), /output must be BF16, F16 or F32/],
    ['k_scale of zero', (t) => t.set('k_scale', makeTensor('F32', [], Float32Array.of(0))), /k_scale is 0/],
    ['k_scale NaN', (t) => t.set('k_scale', makeTensor('F32', [], Float32Array.of(NaN))), /k_scale is NaN/],
    ['v_scale not a scalar', (t) => t.set('v_scale', makeTensor('F32', [2])), /v_scale must be a scalar/],
    ['NaN in the query', (t) => ((t.get('query')!.data as Uint16Array)[5] = 0x7fc0), /query holds a non-finite value at flat index 5/],
    ['FP8 NaN code in a used KV page', (t) => {
      const table = t.get('block_tables')!.data as Int32Array;
      (t.get('kv_cache')!.data as Uint8Array)[table[0] * 2 * 2 * 16 * 64 + 7] = 0x7f;
    }, /kv_cache block \d+ holds a non-finite value/],
    ['empty batch', (t) => (t.set('seq_lens', makeTensor('I32', [0])), t.set('block_tables', makeTensor('I32', [0, 7])), t.set('query', makeTensor('BF16', [0, 4, 64]))), /holds no request/],
  ];
  for (const [name, edit, re] of hostile) test(`hostile dump: ${name}`, () => rejects(mutate(edit), re));

  test('NaN codes in pages no request reads are allowed (stale pages, as on a GPU)', () => {
    const run = mutate((t) => {
      const used = new Set(t.get('block_tables')!.data as Int32Array);
      const free = [...Array(9).keys()].find((b) => !used.has(b))!;
      (t.get('kv_cache')!.data as Uint8Array).fill(0x7f, free * 4096, (free + 1) * 4096);
    });
    assert.doesNotThrow(run);
  });

  test('fuzz: corrupted bytes give a UserError or a valid dump, nothing else', () => {
    const good = serializeKernelDump(smallCase());
    const rng = createRng(11);
    let rejected = 0;
    for (let i = 0; i < 300; i++) {
      const bytes = good.slice(0, rng.next() < 0.2 ? rng.int(good.length) : good.length);
      for (let k = 0; k < 1 + rng.int(4); k++) if (bytes.length) bytes[rng.int(Math.min(bytes.length, rng.next() < 0.7 ? 1200 : bytes.length))] = rng.int(256);
      try {
        parseKernelDump(bytes, LABEL);
      } catch (e) {
        assert.ok(e instanceof UserError, `non-UserError on iteration ${i}: ${String((e as Error)?.stack ?? e)}`);
        rejected++;
      }
    }
    assert.ok(rejected > 50, `only ${rejected} of 300 corruptions were rejected`);
  });
});

describe('kernel dumps: declared NaN poison', () => {
  test('NaN is accepted outside every window only when declared, and refused in a slot a row reads', async () => {
    const { PRESETS } = await import('./presets.js');
    const { buildVectorCase, presetCases } = await import('./vectors.js');
    const small = { ...PRESETS['swa-specdec-sweep'], seqLens: [90, 131] };
    const c = presetCases(small).find((x) => x.qDtype === 'bf16' && x.windowLeft === 63 && x.qLenPerReq === 2)!;
    const parts = buildVectorCase(small, c, 0, { seed: 1, unitScales: false, nanOutsideWindow: true });
    assert.doesNotThrow(() => parseKernelDump(serializeKernelDump(parts), 'ok'));
    const undeclared = { ...parts, meta: { ...parts.meta, extra: { ...parts.meta.extra, poison: '' } } };
    assert.throws(() => parseKernelDump(serializeKernelDump(undeclared), 'x'), /non-finite/);
    const codes = new Uint8Array(parts.kvCache.data as Uint8Array);
    const block = parts.blockTables[1][Math.floor(120 / 16)];
    codes[((block * 2 + 0) * 2 + 0) * 16 * 64 + (120 % 16) * 64] = 0x7f; // K of position 120 (read by request 1), head 0
    const live = { ...parts, kvCache: { ...parts.kvCache, data: codes } };
    assert.throws(() => parseKernelDump(serializeKernelDump(live), 'x'), /position 120 .* non-finite, but a row reads it/);
  });
});
