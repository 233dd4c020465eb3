/**
 * Real GPU outputs (H200; provenance in test/fixtures/kernel/gpu/README.md), re-verified on every run:
 * the PyTorch and Triton kernels are within the auto tolerance; the Triton kernel with its planted
 * bug is localized to exactly the rows, heads and alignments the bug corrupts — computed here from
 * the bug's rule, and equal to the list the capture script recorded in the metadata.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { characterize } from './characterize.js';
import { readKernelDump } from './dump-format.js';
import { verifyDump } from './verify.js';

const root = fileURLToPath(new URL('../../test/fixtures/kernel/gpu/', import.meta.url));
const dumps = (kernel: string) =>
  readdirSync(join(root, kernel))
    .filter((f) => f.endsWith('.safetensors'))
    .sort()
    .map((f) => readKernelDump(join(root, kernel, f)));

describe('GPU dumps (H200)', () => {
  for (const kernel of ['torch', 'triton'])
    test(`${kernel}: every dump within the auto tolerance`, () => {
      const ds = dumps(kernel);
      assert.ok(ds.length >= 2);
      for (const d of ds) {
        assert.match(d.meta.kernel ?? '', kernel === 'torch' ? /pytorch/ : /triton paged decode \(/);
        const r = verifyDump(d, { kind: 'auto' });
        assert.equal(r.ok, true, `${d.label}: ${r.mismatches} mismatches, max ${r.maxAbsError}`);
        assert.ok(r.maxAbsError > 0 && r.maxAbsError < 0.01, `${d.label}: ${r.maxAbsError}`);
      }
    });

  test('triton with the planted bug: exactly the planted (request, row, head) triples, controls clean', () => {
    const ds = dumps('triton-planted');
    const results = ds.map((d) => verifyDump(d, { kind: 'auto' }));
    let planted = 0;
    ds.forEach((d, i) => {
      const r = results[i];
      const group = d.geometry.numHeads / d.geometry.numKvHeads;
      // the bug's rule: BF16 Q, window on, q_len > 4, window start a positive multiple of the page, kv head 1
      const expected: string[] = [];
      if (d.meta.qDtype === 'bf16' && d.meta.windowLeft >= 0 && d.meta.qLenPerReq > 4)
        d.seqLens.forEach((s, b) => {
          for (let t = 0; t < d.meta.qLenPerReq; t++) {
            const lo = s - d.meta.qLenPerReq + t - d.meta.windowLeft;
            if (lo > 0 && lo % d.meta.pageSize === 0)
              for (let h = 0; h < d.geometry.numHeads; h++) if (Math.floor(h / group) === 1) expected.push(`${b}/${t}/${h}`);
          }
        });
      const found = r.faultyPairs.map((p) => `${p.request}/${p.row}/${p.head}`);
      assert.deepEqual(found.sort(), expected.sort(), d.label);
      const recorded = JSON.parse(d.meta.extra.planted_pairs ?? '[]') as number[][];
      assert.deepEqual(recorded.map((x) => x.join('/')).sort(), expected.sort(), `${d.label}: capture's record`);
      assert.ok(r.faultyPairs.every((p) => p.matches.includes('window start one page early')));
      planted += expected.length;
    });
    assert.equal(planted, 46);
    const ch = characterize(results);
    const byName = Object.fromEntries(ch.controls.map((c) => [c.name, c.verdict]));
    assert.deepEqual(byName, { 'reported trigger': 'errors', 'FP8 query': 'clean', 'no window': 'clean', 'q_len ≤ 4': 'clean', 'seq_len ≤ window': 'clean', 'BF16 KV': 'not covered' });
    assert.deepEqual(ch.byHead.filter((b) => b.failing > 0).map((b) => b.key), [2, 3]);
  });
});
