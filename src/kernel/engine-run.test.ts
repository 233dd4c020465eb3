/**
 * Acceptance on the CPU: the engine's emulated FlashInfer decode path with the fault model
 * trtllm-gen-swa-specdec (a MODEL of flashinfer#3864) writes outputs into the default vectors;
 * verify must find exactly the (request, row, head) pairs the model changed, at exactly the
 * alignments the model affects, with every control clean; and the vllm-affected scale policy must
 * show up as a bmm1 factor of q_scale on BF16-query dumps, and vanish with unit scales.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { trtllmGenSwaSpecdec } from '../engine/attention/fault-models.js';
import { characterize } from './characterize.js';
import { MAX_HYPOTHESIS_PAIRS } from './hypotheses.js';
import { parseKernelDump, serializeKernelDump } from './dump-format.js';
import { runEngineOnDump, type EngineRunOptions } from './engine-run.js';
import { PRESETS } from './presets.js';
import { buildVectorCase, presetCases } from './vectors.js';
import { verifyDump, type CaseResult } from './verify.js';

const preset = PRESETS['swa-specdec-sweep'];

function runAll(o: EngineRunOptions, unitScales = false) {
  return presetCases(preset).map((c, i) => {
    const d = parseKernelDump(serializeKernelDump(buildVectorCase(preset, c, i, { seed: 1, unitScales })), c.file);
    const { dump, record } = runEngineOnDump(d, o);
    // through the file format, as the CLI does
    const result = verifyDump(parseKernelDump(serializeKernelDump(dump), c.file), { kind: 'auto' });
    return { c, record, result, dump };
  });
}

const key = (p: { request: number; row: number; head: number }) => `${p.request}/${p.row}/${p.head}`;

describe('engine fault-model dumps: verify localizes exactly the faulted pairs', () => {
  const runs = runAll({ policy: 'fixed', faultModel: trtllmGenSwaSpecdec });

  test('the localized (request, row, head) pairs equal the pairs the fault model changed, in every dump', () => {
    let total = 0;
    for (const { c, record, result } of runs) {
      assert.deepEqual(result.faultyPairs.map(key).sort(), record.faultyPairs.map(key).sort(), c.file);
      total += record.faultyPairs.length;
    }
    assert.equal(total, 88); // q_len 5: 10, 8: 13, 16: 21 faulty rows over seq_len 60–100, 2 heads (one KV head) each
  });

  test('the affected alignments: exactly the rows whose window start is a positive multiple of the page', () => {
    for (const { c, result } of runs) {
      if (c.qDtype !== 'bf16' || c.windowLeft < 0 || c.qLenPerReq <= 4) {
        assert.equal(result.ok, true, `${c.file} is a control and must be clean`);
        continue;
      }
      const expected = new Set<string>();
      result.requests.forEach((r) => {
        for (let t = 0; t < c.qLenPerReq; t++) {
          const lo = r.seqLen - c.qLenPerReq + t - c.windowLeft;
          if (lo > 0 && lo % preset.pageSize === 0) expected.add(`${r.request}/${t}`);
        }
      });
      assert.deepEqual(new Set(result.faultyPairs.map((p) => `${p.request}/${p.row}`)), expected, c.file);
      // one KV head per faulty row, (lo / P) mod Hkv: its query heads, Hq / Hkv of them
      const group = preset.numHeads / preset.numKvHeads;
      for (const p of result.faultyPairs)
        assert.equal(Math.floor(p.head / group), (p.windowStart / preset.pageSize) % preset.numKvHeads);
      assert.ok(result.faultyPairs.every((p) => p.matches.includes('keys shifted back one page (lo−P..p−P)')));
    }
  });

  test('characterization: the trigger has errors, every control is clean, the window start mod page is 0', () => {
    const ch = characterize(runs.map((r) => r.result));
    const byName = Object.fromEntries(ch.controls.map((c) => [c.name, c]));
    assert.ok(byName['reported trigger'].failing > 0);
    for (const name of ['FP8 query', 'no window', 'q_len ≤ 4', 'seq_len ≤ window']) {
      assert.equal(byName[name].verdict, 'clean', name);
      assert.ok(byName[name].requests > 0, name);
    }
    assert.equal(byName['BF16 KV'].verdict, 'not covered');
    const failingOffsets = ch.byWindowStartModPage.filter((b) => b.failing > 0).map((b) => b.key);
    assert.deepEqual(failingOffsets, [0]);
    const zero = ch.byWindowStartModPage.find((b) => b.key === 0)!;
    assert.equal(zero.failing, zero.total); // every page-aligned row of the affected dumps
  });
});

describe('engine scale-policy dumps: the bookkeeping defect needs non-unit scales', () => {
  const results = (runs: { c: { qDtype: string }; result: CaseResult }[]) => runs.map((r) => ({ q: r.c.qDtype, r: r.result }));

  test('vllm-affected with calibrated scales: BF16-query dumps are off by a bmm1 factor of q_scale; FP8-query dumps are right', () => {
    for (const { q, r } of results(runAll({ policy: 'vllm-affected', faultModel: null }))) {
      if (q === 'fp8_e4m3') {
        assert.equal(r.ok, true);
        assert.equal(r.scaleAudit.consistent, true);
        continue;
      }
      assert.equal(r.ok, false, r.file);
      assert.equal(r.scaleAudit.consistent, false);
      assert.ok(r.faultyPairs.length > 0.9 * r.requests.length * r.qLenPerReq * r.numHeads, `${r.file}: ${r.faultyPairs.length} pairs`);
      assert.equal(r.pairsExamined, Math.min(r.faultyPairs.length, MAX_HYPOTHESIS_PAIRS));
      assert.ok(r.faultyPairs.slice(0, r.pairsExamined).every((p) => p.matches.includes('scales as passed (bmm1/bmm2 of the metadata)')));
    }
  });

  test('vllm-affected with unit scales is clean everywhere', () => {
    for (const { r } of results(runAll({ policy: 'vllm-affected', faultModel: null }, true))) {
      assert.equal(r.ok, true, r.file);
      assert.equal(r.scaleAudit.consistent, true);
    }
  });
});
