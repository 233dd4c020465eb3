/**
 * The hypotheses real kernels need: a window start rounded down to a key tile (for the row's own,
 * the first or the last draft row's start; the tile size found from the data), dropped or doubled
 * q/k/v scales, and NaN reads in a poisoned dump. Each is planted into an output computed with the
 * reference itself, and verify must name exactly that mechanism as the one that explains every pair.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { referenceAttention } from '../engine/attention/reference-backend.js';
import { parseKernelDump, serializeKernelDump, type KernelDump } from './dump-format.js';
import { characterize } from './characterize.js';
import { POISON_READ } from './hypotheses.js';
import { referenceInputs, referenceOutput } from './reference-inputs.js';
import { smallCase, withOutput, type DumpParts } from './testing.js';
import { PRESETS } from './presets.js';
import { buildVectorCase, presetCases } from './vectors.js';
import { verifyDump } from './verify.js';

const load = (d: DumpParts): KernelDump => parseKernelDump(serializeKernelDump(d), 'test.safetensors');

/** The output of a kernel whose row r of request b attends [range(b, r)] with logits × f and output × g. */
function plantedOutput(d: KernelDump, range: (seqLen: number, p: number, lo: number) => [number, number], logits = 1, output = 1): Float32Array {
  const { q, layer, requests } = referenceInputs(d);
  const out = new Float32Array(q.length);
  const scratch = new Float32Array(q.length);
  const qLen = d.meta.qLenPerReq, W = d.meta.windowLeft;
  const rowElems = d.geometry.numHeads * d.geometry.headDim;
  requests.forEach((req, b) => {
    for (let t = 0; t < qLen; t++) {
      const p = req.seqLen - qLen + t, lo = W < 0 ? 0 : Math.max(0, p - W);
      const [a, z] = range(req.seqLen, p, lo);
      const row = b * qLen + t;
      referenceAttention(q, scratch, { view: req.view, seqLen: z + 1, qLen: 1, rowStart: row }, { ...layer, smScale: layer.smScale * logits, windowLeft: z - a });
      for (let i = row * rowElems; i < (row + 1) * rowElems; i++) out[i] = scratch[i] * output;
    }
  });
  return out;
}

/** Window starts well past 64 and 128 keys at offsets that are no tile multiple. */
const longCase = (qLen: number) => smallCase({ qLen, preset: { seqLens: [150, 211, 290, 333] } });

describe('kernel verify: localization hypotheses for real kernels', () => {
  for (const [who, startOf] of [
    ["the first draft row's", (s: number, q: number) => Math.max(0, s - q - 63)],
    ["the last draft row's", (s: number) => Math.max(0, s - 1 - 63)],
  ] as const)
    for (const tile of [32, 64])
      test(`${who} window start rounded down to a ${tile}-key tile: named, tile size found, 100 % of pairs`, () => {
        const qLen = 8;
        const d = load(longCase(qLen));
        const planted = plantedOutput(d, (s, p) => [Math.floor(startOf(s, qLen) / tile) * tile, p]);
        const r = verifyDump(load(withOutput(d, planted)), { kind: 'auto' });
        assert.ok(!r.ok);
        const ch = characterize([r]);
        const want = `${who} window start rounded down to a ${tile}-key tile`;
        assert.equal(ch.mechanism?.share, 1, JSON.stringify(ch.mechanism));
        assert.ok(ch.mechanism!.name === want || ch.mechanism!.ties.includes(want), `${want} not among ${JSON.stringify(ch.mechanism)}`);
        assert.equal(ch.unexplained, 0);
        // another tile size would round some start differently: it must not explain every pair too
        for (const other of [16, 128, 256].filter((t) => t !== tile)) {
          const h = ch.hypotheses.find((x) => x.name === `${who} window start rounded down to a ${other}-key tile`);
          assert.ok(!h || h.share < 1, `${other}-key tile explains everything too`);
        }
      });

  test('the window start rounded down is told apart from "no window" once starts pass the tile', () => {
    const d = load(longCase(4));
    const planted = plantedOutput(d, (_s, p, lo) => [Math.floor(lo / 64) * 64, p]);
    const ch = characterize([verifyDump(load(withOutput(d, planted)), { kind: 'auto' })]);
    const noWindow = ch.hypotheses.find((h) => h.name === 'no window');
    assert.ok(!noWindow || noWindow.share < 0.5, JSON.stringify(noWindow));
  });

  for (const [name, f] of [
    ['q scale dropped, k scale dropped, v scale dropped', (d: KernelDump) => [1 / (d.scales.q * d.scales.k), 1 / d.scales.v]],
    ['k scale dropped, v scale dropped', (d: KernelDump) => [1 / d.scales.k, 1 / d.scales.v]],
    ['k scale applied twice', (d: KernelDump) => [d.scales.k, 1]],
  ] as const)
    test(`scale bookkeeping: ${name}`, () => {
      const d = load(smallCase({ qLen: 4, qDtype: 'fp8_e4m3' }));
      const [logits, output] = f(d);
      const planted = plantedOutput(d, (_s, p, lo) => [lo, p], logits, output);
      const ch = characterize([verifyDump(load(withOutput(d, planted)), { kind: 'auto' })]);
      assert.equal(ch.mechanism?.name, name);
      assert.equal(ch.mechanism?.share, 1);
    });

  test('a q scale applied to a BF16 query (the seed scale-bookkeeping class) is named as such', () => {
    const d = load(smallCase({ qLen: 4, qDtype: 'bf16' }));
    const planted = plantedOutput(d, (_s, p, lo) => [lo, p], d.scales.q, 1);
    const ch = characterize([verifyDump(load(withOutput(d, planted)), { kind: 'auto' })]);
    // q_scale and k_scale of these vectors are close (both amax/448 of unit normals): a factor of one
    // reproduces a factor of the other within tolerance, so the two may tie; both must be named
    assert.equal(ch.mechanism?.share, 1);
    assert.ok([ch.mechanism!.name, ...ch.mechanism!.ties].includes('q scale applied twice'), JSON.stringify(ch.mechanism));
  });

  test('a NaN-poisoned dump: a non-finite output is a read of a masked slot, and a finite correct output passes', () => {
    const p = { ...PRESETS['swa-specdec-sweep'], seqLens: [70, 95, 130] };
    const c = presetCases(p).find((x) => x.qDtype === 'bf16' && x.windowLeft === 63 && x.qLenPerReq === 4)!;
    const d = load(buildVectorCase(p, c, 0, { seed: 2, unitScales: false, nanOutsideWindow: true }));
    assert.equal(verifyDump(load(withOutput(d, referenceOutput(d))), { kind: 'auto' }).ok, true);
    const bad = referenceOutput(d);
    bad.fill(NaN, 0, d.geometry.headDim * d.geometry.numHeads); // request 0, row 0: every head
    const r = verifyDump(load(withOutput(d, bad)), { kind: 'auto' });
    assert.equal(r.faultyPairs.length, d.geometry.numHeads);
    assert.ok(r.faultyPairs.every((pe) => pe.matches.includes(POISON_READ)));
    assert.equal(characterize([r]).mechanism?.name, POISON_READ);
  });
});
