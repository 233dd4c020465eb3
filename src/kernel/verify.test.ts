/**
 * verify: the reference is the exact masked attention of the dump's dequantized inputs (checked
 * against closed forms: a zero query averages V over the row's window), errors are localized to the
 * exact (request, row, head), NaN outputs are reported (not crashed on), layouts agree, tolerances.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { UserError } from '../core/errors.js';
import { FP8_E4M3_DECODE_LUT } from '../numerics/fp8.js';
import { makeTensor } from '../tensors/tensor.js';
import { parseKernelDump, serializeKernelDump, type KernelDump } from './dump-format.js';
import { verifyJson } from './format-json.js';
import { characterize } from './characterize.js';
import { referenceOutput } from './reference-inputs.js';
import { smallCase, withOutput, type DumpParts } from './testing.js';
import { autoTolerance, parseTolerance } from './tolerance.js';
import { verifyDump } from './verify.js';

const load = (d: DumpParts): KernelDump => parseKernelDump(serializeKernelDump(d), 'test.safetensors');

/** V[pos, kvHead, d] of an HND FP8 dump, dequantized, read through the block table by hand. */
function vAt(d: KernelDump, b: number, pos: number, g: number, i: number): number {
  const { numKvHeads: H, headDim: hd } = d.geometry;
  const P = d.meta.pageSize;
  const block = d.blockTables[b][Math.floor(pos / P)];
  const code = (d.kvCache.data as Uint8Array)[(((block * 2 + 1) * H + g) * P + (pos % P)) * hd + i];
  return FP8_E4M3_DECODE_LUT[code] * Math.fround(d.scales.v);
}

describe('kernel verify: the reference', () => {
  for (const windowLeft of [63, -1])
    for (const qDtype of ['bf16', 'fp8_e4m3'] as const)
      test(`a zero query averages V over each row's own window (window_left ${windowLeft}, Q ${qDtype})`, () => {
        const parts = smallCase({ windowLeft, qDtype, qLen: 5 });
        parts.query = makeTensor(parts.query.dtype, parts.query.shape); // all codes 0 → Q = 0
        const d = load(parts);
        const ref = referenceOutput(d);
        const { numHeads: Hq, numKvHeads: Hkv, headDim: hd } = d.geometry;
        for (let b = 0; b < d.geometry.batch; b++)
          for (let t = 0; t < 5; t++) {
            const p = d.seqLens[b] - 5 + t;
            const lo = windowLeft < 0 ? 0 : Math.max(0, p - windowLeft);
            for (let h = 0; h < Hq; h++)
              for (const i of [0, 17, hd - 1]) {
                let sum = 0;
                for (let j = lo; j <= p; j++) sum += vAt(d, b, j, Math.floor(h / (Hq / Hkv)), i);
                const got = ref[((b * 5 + t) * Hq + h) * hd + i];
                assert.ok(Math.abs(got - sum / (p - lo + 1)) <= 1e-6 * Math.max(1, Math.abs(got)), `b${b} t${t} h${h} d${i}: ${got} vs ${sum / (p - lo + 1)}`);
              }
          }
      });

  test('NHD and HND layouts of the same cache give the same reference', () => {
    const parts = smallCase({ qLen: 4 });
    const [B, , H, P, hd] = parts.kvCache.shape;
    const src = parts.kvCache.data as Uint8Array;
    const nhd = new Uint8Array(src.length);
    for (let b = 0; b < B; b++)
      for (let kv = 0; kv < 2; kv++)
        for (let h = 0; h < H; h++)
          for (let s = 0; s < P; s++)
            for (let i = 0; i < hd; i++) nhd[((((b * 2 + kv) * P + s) * H + h) * hd) + i] = src[((((b * 2 + kv) * H + h) * P + s) * hd) + i];
    const a = referenceOutput(load(parts));
    const b = referenceOutput(load({ ...parts, kvCache: makeTensor('F8_E4M3', [B, 2, P, H, hd], nhd), meta: { ...parts.meta, kvLayout: 'NHD' } }));
    assert.deepEqual(a, b);
  });
});

describe('kernel verify: comparison and localization', () => {
  test('the reference itself verifies clean; one planted element is localized to its (request, row, head)', () => {
    const parts = smallCase({ qLen: 8 });
    const ref = referenceOutput(load(parts));
    const clean = verifyDump(load(withOutput(parts, ref)), { kind: 'auto' });
    assert.equal(clean.ok, true);
    assert.equal(clean.maxAbsError, 0);
    const bad = Float32Array.from(ref);
    const [b, t, h, i] = [2, 5, 3, 7];
    bad[((b * 8 + t) * 4 + h) * 64 + i] += 1;
    const r = verifyDump(load(withOutput(parts, bad)), { kind: 'auto' });
    assert.equal(r.ok, false);
    assert.equal(r.mismatches, 1);
    assert.deepEqual(r.faultyPairs.map((p) => [p.request, p.row, p.head, p.mismatches]), [[b, t, h, 1]]);
    assert.equal(r.faultyPairs[0].position, parts.seqLens[b] - 8 + t);
    assert.ok(Math.abs(r.faultyPairs[0].maxAbs - 1) < 1e-6);
    assert.deepEqual(r.requests.map((q) => q.faultyPairs), [0, 0, 1, 0]);
  });

  test('a NaN-filled output is reported as mismatches everywhere, with non-finite counts, and survives JSON', () => {
    const parts = smallCase({ qLen: 2 });
    const r = verifyDump(load(withOutput(parts, new Float32Array(parts.query.data.length).fill(NaN))), { kind: 'auto' });
    assert.equal(r.ok, false);
    assert.equal(r.mismatches, r.elements);
    assert.equal(r.nonFinite, r.elements);
    assert.equal(r.maxAbsError, Infinity);
    assert.equal(r.faultyPairs.length, 4 * 2 * 4);
    const json = JSON.parse(verifyJson([r], characterize([r]), 'auto'));
    assert.equal(json.dumps[0].maxAbsError, 'Infinity');
    assert.equal(json.ok, false);
  });

  test('a wrong bmm1 in the metadata is audited (logits factor) and explained by "scales as passed"', () => {
    const parts = smallCase({ qLen: 1 });
    const d0 = load(parts);
    const factor = 1 / d0.scales.q; // a kernel that got q_scale folded in for a BF16 query, inverted so the change is visible
    const wrongMeta = { ...parts.meta, bmm1Scale: parts.meta.bmm1Scale * factor };
    const d = load({ ...parts, meta: wrongMeta });
    // the kernel's output with that bmm1: the reference at sm · factor
    const out = referenceOutput(load({ ...parts, meta: { ...parts.meta, smScale: parts.meta.smScale * factor } }));
    const r = verifyDump(load(withOutput({ ...parts, meta: wrongMeta }, out)), { kind: 'auto' });
    assert.equal(d.meta.bmm1Scale, Math.fround(wrongMeta.bmm1Scale));
    assert.equal(r.scaleAudit.consistent, false);
    assert.ok(Math.abs(r.scaleAudit.logitsFactor / factor - 1) < 1e-6);
    assert.ok(r.faultyPairs.length > 0);
    assert.ok(r.faultyPairs.every((p) => p.matches.includes('scales as passed (bmm1/bmm2 of the metadata)')));
  });

  test('tolerance: auto bands from the dtypes, ×2 for q_len_per_req > 1; ABS,REL parsing', () => {
    const m = load(smallCase({ qLen: 1 })).meta;
    assert.deepEqual([autoTolerance(m).atol, autoTolerance(m).rtol], [0.01, 0.01]);
    assert.deepEqual([autoTolerance({ ...m, qLenPerReq: 8 }).atol, autoTolerance({ ...m, qLenPerReq: 8 }).rtol], [0.02, 0.02]);
    const f = autoTolerance({ ...m, qDtype: 'fp8_e4m3', qLenPerReq: 8 });
    assert.deepEqual([f.atol, f.rtol], [0.14, 0.08]);
    assert.deepEqual(parseTolerance('0.5,0'), { kind: 'fixed', atol: 0.5, rtol: 0 });
    for (const bad of ['', '1', '1,2,3', 'a,b', '-1,0', 'NaN,1']) assert.throws(() => parseTolerance(bad), UserError);
  });

  test('a kernel that declares FP8 arithmetic is judged on the FP8 band, and the report counts what the dtype band flags', () => {
    const parts = smallCase({ qLen: 4 });
    const ref = referenceOutput(load(parts));
    // an error of 0.05 on every element: FP8-rounding sized, 2.5× the BF16 spec-decode band
    const noisy = ref.map((x) => x + 0.05);
    const bf16Kernel = verifyDump(load(withOutput(parts, noisy)), { kind: 'auto' });
    assert.equal(bf16Kernel.ok, false);
    assert.equal(bf16Kernel.dtypeBand, undefined);
    const fp8 = withOutput(parts, noisy);
    const fp8Kernel = verifyDump(load({ ...fp8, meta: { ...fp8.meta, extra: { ...fp8.meta.extra, kernel_arithmetic: 'fp8' } } }), { kind: 'auto' });
    assert.equal(fp8Kernel.ok, true);
    assert.deepEqual([fp8Kernel.tolerance.atol, fp8Kernel.tolerance.rtol], [0.1, 0.1]);
    assert.match(fp8Kernel.tolerance.source, /FP8-arithmetic/);
    assert.equal(fp8Kernel.dtypeBand?.mismatches, bf16Kernel.mismatches);
    // a given tolerance is the user's: no second band
    assert.equal(verifyDump(load({ ...fp8, meta: { ...fp8.meta, extra: { kernel_arithmetic: 'fp8' } } }), parseTolerance('0.2,0')).dtypeBand, undefined);
  });
});
