/**
 * Test vectors: the default preset covers every page alignment past the window and its controls,
 * scales are calibrated (≠ 1) unless asked, FP8 queries are vLLM's quantization, output is absent,
 * generation is deterministic per seed, and the manifest lists what was written.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quantizeQuery } from '../engine/attention/flashinfer.js';
import { FP8_E4M3_DECODE_LUT } from '../numerics/fp8.js';
import { bf16BitsToF32 } from '../numerics/bf16.js';
import { readKernelDump, serializeKernelDump, parseKernelDump } from './dump-format.js';
import { PRESETS } from './presets.js';
import { buildVectorCase, presetCases, quantizeQueryCodes, writeVectors, type Manifest } from './vectors.js';

const p = PRESETS['swa-specdec-sweep'];

describe('kernel vectors', () => {
  test('the default preset: q_len 1,2,4,5,8,16 × Q BF16/FP8 × window on/off, seq_len across the window and every alignment', () => {
    const cases = presetCases(p);
    assert.equal(cases.length, 24);
    assert.deepEqual([...new Set(cases.map((c) => c.qLenPerReq))], [1, 2, 4, 5, 8, 16]);
    assert.deepEqual([...new Set(cases.map((c) => c.windowLeft))], [63, -1]);
    assert.ok(p.seqLens.some((s) => s < p.slidingWindow) && p.seqLens.some((s) => s === p.slidingWindow));
    const past = p.seqLens.filter((s) => s > p.slidingWindow);
    assert.deepEqual(new Set(past.map((s) => s % p.pageSize)).size, p.pageSize);
  });

  test('calibrated scales ≠ 1 and bmm1/bmm2 as the fixed bookkeeping requires; unit scales on request', () => {
    const c = presetCases(p)[0]; // BF16 Q, FP8 KV
    const d = buildVectorCase(p, c, 0, { seed: 1, unitScales: false });
    for (const k of ['q', 'k', 'v'] as const) assert.notEqual(d.scales[k], 1);
    assert.equal(d.meta.bmm1Scale, p.smScale * d.scales.k); // BF16 query: no q_scale
    assert.equal(d.meta.bmm2Scale, d.scales.v);
    assert.equal(d.output, undefined);
    const u = buildVectorCase(p, c, 0, { seed: 1, unitScales: true });
    assert.deepEqual(u.scales, { q: 1, k: 1, v: 1 });
  });

  test("an FP8 query is vLLM's static quantization (same codes as the engine's quantizeQuery)", () => {
    const x = Float32Array.from({ length: 2000 }, (_, i) => Math.sin(i) * 3 + (i % 7 === 0 ? 1e3 : 0));
    const codes = quantizeQueryCodes(x, 0.0071);
    for (let i = 0; i < x.length; i++) assert.equal(FP8_E4M3_DECODE_LUT[codes[i]], quantizeQuery(x[i], 0.0071));
    const c = presetCases(p).find((k) => k.qDtype === 'fp8_e4m3')!;
    const d = buildVectorCase(p, c, 3, { seed: 1, unitScales: false });
    assert.equal(d.query.dtype, 'F8_E4M3');
    assert.equal(d.meta.bmm1Scale, p.smScale * d.scales.q * d.scales.k);
  });

  test('deterministic per seed; different seeds differ; BF16 query values are BF16', () => {
    const c = presetCases(p)[4];
    const a = serializeKernelDump(buildVectorCase(p, c, 4, { seed: 5, unitScales: false }));
    const b = serializeKernelDump(buildVectorCase(p, c, 4, { seed: 5, unitScales: false }));
    const other = serializeKernelDump(buildVectorCase(p, c, 4, { seed: 6, unitScales: false }));
    assert.deepEqual(a, b);
    assert.notDeepEqual(a, other);
    const d = parseKernelDump(a);
    assert.ok(Number.isFinite(bf16BitsToF32((d.query.data as Uint16Array)[0])));
    assert.notDeepEqual(d.blockTables[0], [...d.blockTables[0]].sort((x, y) => x - y)); // shuffled pages
  });

  test('writeVectors writes every case and a manifest that lists them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'faultline-vectors-'));
    try {
      const small = { ...PRESETS['kv-dtype-controls'], seqLens: [62, 80] };
      const m = writeVectors(dir, small, { seed: 2, unitScales: false });
      const onDisk = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest;
      assert.deepEqual(onDisk, JSON.parse(JSON.stringify(m)));
      assert.deepEqual(readdirSync(dir).filter((f) => f.endsWith('.safetensors')).sort(), m.cases.map((c) => c.file).sort());
      assert.equal(m.cases.length, 4); // FP8 and BF16 KV × q_len 4, 8
      const bf16kv = readKernelDump(join(dir, m.cases.find((c) => c.kvDtype === 'bf16')!.file));
      assert.equal(bf16kv.kvCache.dtype, 'BF16');
      assert.deepEqual(bf16kv.scalesPresent, { q: true, k: false, v: false });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('kernel vectors: tile offsets and NaN poison', () => {
  test('the tile-offset presets put window starts past 64, 128 and 256 keys, at offsets no tile divides', () => {
    for (const name of ['swa-tile-offsets', 'swa-tile-offsets-large']) {
      const t = PRESETS[name];
      const starts = t.seqLens.map((s) => s - t.slidingWindow).filter((x) => x > 0);
      for (const tile of name.endsWith('large') ? [256] : [64, 128, 256]) assert.ok(starts.some((x) => x > tile), `${name}: no start past ${tile}`);
      assert.ok(starts.filter((x) => x % 16 !== 0).length >= starts.length - 1, `${name}: starts on page multiples`);
      assert.ok(t.seqLens.some((s) => s <= t.slidingWindow), `${name}: no seq_len ≤ window control`);
    }
  });

  for (const slots of ['all', 'before-window', 'past-end'] as const)
    test(`--nan-outside-window ${slots}: NaN exactly in the slots no row reads, own pages per request, declared in the metadata`, () => {
      const small = { ...PRESETS['swa-specdec-sweep'], seqLens: [40, 90, 131] };
      const c = presetCases(small).find((x) => x.qDtype === 'bf16' && x.windowLeft === 63 && x.qLenPerReq === 4)!;
      const d = parseKernelDump(serializeKernelDump(buildVectorCase(small, c, 0, { seed: 1, unitScales: false, nanOutsideWindow: true, nanSlots: slots })), 'p');
      assert.equal(d.meta.extra.poison, 'nan-outside-window');
      assert.equal(d.meta.extra.poison_slots, slots);
      const owned = d.blockTables.map((row, b) => row.slice(0, Math.ceil(d.seqLens[b] / 16)));
      assert.equal(new Set(owned.flat()).size, owned.flat().length, 'requests share pages');
      const codes = d.kvCache.data as Uint8Array;
      const { numKvHeads: H, headDim: hd } = d.geometry;
      d.seqLens.forEach((s, b) => {
        const firstRead = Math.max(0, s - 4 - 63);
        for (let pos = 0; pos < owned[b].length * 16; pos++) {
          const at = (((owned[b][pos >> 4] * 2 + 1) * H + 0) * 16 + (pos % 16)) * hd; // V plane, head 0
          const isNan = (codes[at] & 0x7f) === 0x7f;
          const want = (pos < firstRead && slots !== 'past-end') || (pos >= s && slots !== 'before-window');
          assert.equal(isNan, want, `${slots}: request ${b} position ${pos}`);
        }
      });
    });

  test('the poison flag off leaves every preset byte for byte as before (a shared prefix of pages)', () => {
    const c = presetCases(p)[7];
    const a = buildVectorCase(p, c, 7, { seed: 1, unitScales: false });
    const b = buildVectorCase(p, c, 7, { seed: 1, unitScales: false, nanOutsideWindow: false });
    assert.deepEqual(serializeKernelDump(a), serializeKernelDump(b));
    assert.ok(a.blockTables.every((row) => row.join() === a.blockTables[0].join()));
  });
});
