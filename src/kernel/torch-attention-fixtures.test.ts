/**
 * Attention kernels nobody here wrote, on an H200 (provenance: test/fixtures/kernel/torch-attention/README.md):
 * PyTorch FlexAttention over a paged KV cache with a sliding-window + causal block mask, SDPA with each
 * backend forced on the gathered pages, and FlashAttention-2 with its own sliding window. Re-verified on
 * every run against the float64 reference, with the tolerance of the dtypes (tolerance.ts: FlashInfer's
 * own test band, research attention-numerics.md §5.4) — never a tolerance fitted to these outputs. The
 * capture's records must agree with the dumps, and a wrong window planted into a real output must come
 * back localized to exactly its (request, row, head) pairs.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { referenceAttention } from '../engine/attention/reference-backend.js';
import { f32ToBf16Bits } from '../numerics/bf16.js';
import { makeTensor } from '../tensors/tensor.js';
import { characterize } from './characterize.js';
import { readKernelDump, type KernelDump } from './dump-format.js';
import { referenceInputs } from './reference-inputs.js';
import { verifyDump } from './verify.js';

const root = fileURLToPath(new URL('../../test/fixtures/kernel/torch-attention/', import.meta.url));
const versions = JSON.parse(readFileSync(join(root, 'versions.json'), 'utf8')) as Record<string, string | number>;

/** What each committed kernel folder must hold: who wrote it, which q_len_per_req, how it was driven. */
const KERNELS: Record<string, { kernel: RegExp; qLens: number[]; notes: Record<string, string> }> = {
  'flex-paged': {
    kernel: /^pytorch flex_attention, torch\.compile, paged KV \+ sliding-window block mask/,
    qLens: [1, 4, 8, 16],
    notes: { flex_mode: 'torch.compile(flex_attention, dynamic=False)', block_mask: 'create_block_mask(sliding-window + causal, BLOCK_SIZE=(128, 16)) → PagedAttention.convert_logical_block_mask' },
  },
  'sdpa-flash': { kernel: /FLASH_ATTENTION forced/, qLens: [1, 4, 8, 16], notes: { sdpa_backend: 'FLASH_ATTENTION', sdpa_formulation: 'row-window' } },
  'sdpa-efficient': { kernel: /EFFICIENT_ATTENTION forced/, qLens: [1, 4, 8, 16], notes: { sdpa_backend: 'EFFICIENT_ATTENTION', sdpa_formulation: 'request-mask' } },
  'sdpa-cudnn': { kernel: /CUDNN_ATTENTION forced/, qLens: [1, 4, 8, 16], notes: { sdpa_backend: 'CUDNN_ATTENTION', sdpa_formulation: 'request-mask' } },
  'sdpa-math': { kernel: /MATH forced/, qLens: [1, 4, 8, 16], notes: { sdpa_backend: 'MATH', sdpa_formulation: 'request-mask' } },
  'flash-varlen-window': { kernel: /aten\._flash_attention_forward varlen with its sliding window/, qLens: [16], notes: { native_window: 'window_size_left=63, window_size_right=0, is_causal' } },
};

const dumpsOf = (kernel: string): KernelDump[] =>
  readdirSync(join(root, kernel))
    .filter((f) => f.endsWith('.safetensors'))
    .sort()
    .map((f) => readKernelDump(join(root, kernel, f)));

const expectedVersion = `torch ${versions.torch}, triton ${versions.triton}, cuda ${versions.cuda}, cudnn ${versions.cudnn}, ${versions.gpu}`;

describe('PyTorch attention kernels on an H200', () => {
  test('the capture ran on the machine its record names', () => {
    assert.equal(versions.gpu, 'NVIDIA H200');
    assert.match(String(versions.torch), /^2\.11\./);
    assert.match(expectedVersion, /triton \d+\.\d+\.\d+, cuda \d+\.\d+, cudnn \d+/);
  });

  for (const [name, want] of Object.entries(KERNELS))
    test(`${name}: every dump within the auto tolerance of its dtypes (BF16 Q, FP8 KV, window 64)`, () => {
      const ds = dumpsOf(name);
      assert.deepEqual(ds.map((d) => d.meta.qLenPerReq), want.qLens);
      for (const d of ds) {
        assert.match(d.meta.kernel ?? '', want.kernel, d.label);
        assert.equal(d.meta.kernelVersion, expectedVersion, d.label);
        for (const [k, v] of Object.entries(want.notes)) assert.equal(d.meta.extra[k], v, `${d.label}: ${k}`);
        assert.equal(d.meta.extra.repeat_bitwise_equal, 'true', `${d.label}: two runs gave different bits`);
        assert.deepEqual([d.meta.qDtype, d.meta.kvDtype, d.meta.windowLeft, d.meta.outDtype], ['bf16', 'fp8_e4m3', 63, 'bf16']);
        const r = verifyDump(d, { kind: 'auto' });
        const band = d.meta.qLenPerReq > 1 ? 2e-2 : 1e-2; // BF16 query band, ×2 for spec-decode (tolerance.ts)
        assert.deepEqual([r.tolerance.atol, r.tolerance.rtol], [band, band], d.label);
        assert.equal(r.ok, true, `${d.label}: ${r.mismatches} mismatches in ${r.faultyPairs.length} pairs, first ${JSON.stringify(r.faultyPairs[0])}`);
        // a real kernel's own rounding, not a copy of the reference
        assert.ok(r.maxAbsError > 0, d.label);
        assert.ok(r.scaleAudit.consistent, `${d.label}: bmm1/bmm2 of the metadata disagree with the dtypes`);
      }
    });

  test('controls over all of them: the trigger shape, q_len ≤ 4 and seq_len ≤ window all clean', () => {
    const results = Object.keys(KERNELS).flatMap((k) => dumpsOf(k).map((d) => verifyDump(d, { kind: 'auto' })));
    const ch = characterize(results);
    const byName = Object.fromEntries(ch.controls.map((c) => [c.name, c]));
    for (const name of ['reported trigger', 'q_len ≤ 4', 'seq_len ≤ window']) {
      assert.equal(byName[name].verdict, 'clean', name);
      assert.ok(byName[name].requests > 0, name);
    }
    assert.equal(ch.faultyPairs, 0);
  });

  test("the capture's records list every committed dump, with the dump's own notes, and no refused case", () => {
    const records = readdirSync(join(root, 'capture-records')).filter((f) => f.endsWith('.json'));
    assert.ok(records.length >= Object.keys(KERNELS).length);
    for (const file of records) {
      const rec = JSON.parse(readFileSync(join(root, 'capture-records', file), 'utf8')) as { kernel: string; files: { file: string; error?: string; notes?: Record<string, string> }[] };
      assert.equal(`${rec.kernel}.json`, file);
      assert.deepEqual(rec.files.filter((f) => f.error).map((f) => f.file), [], `${rec.kernel} refused cases`);
      if (!(rec.kernel in KERNELS)) continue;
      for (const d of dumpsOf(rec.kernel)) {
        const entry = rec.files.find((f) => d.label.endsWith(`/${f.file}`));
        assert.ok(entry, `${d.label} missing from the record`);
        for (const [k, v] of Object.entries(entry.notes ?? {})) assert.equal(d.meta.extra[k], v, `${d.label}: ${k}`);
      }
    }
  });

  test('a window one page early, planted into a real FlexAttention output, is localized to exactly its pairs', () => {
    const d = dumpsOf('flex-paged').find((x) => x.meta.qLenPerReq === 16)!;
    const planted = plantPageEarlyWindow(d, [2, 3]);
    assert.ok(planted.pairs.length > 20);
    const r = verifyDump(planted.dump, { kind: 'auto' });
    const found = r.faultyPairs.map((p) => `${p.request}/${p.row}/${p.head}`).sort();
    assert.deepEqual(found, [...planted.pairs].sort());
    assert.ok(r.faultyPairs.every((p) => p.matches.includes('window start one page early')));
    assert.deepEqual(characterize([r]).byHead.filter((b) => b.failing > 0).map((b) => b.key), [2, 3]);
  });
});

/**
 * The dump with the output of `heads` replaced, in every row whose window start is a positive multiple
 * of the page, by the reference over a window that starts one page early (rounded to BF16, as a kernel
 * writes it). Such pairs are far outside tolerance here (attention spreads over the window).
 */
function plantPageEarlyWindow(d: KernelDump, heads: number[]): { dump: KernelDump; pairs: string[] } {
  const { q, layer, requests } = referenceInputs(d);
  const { numHeads: Hq, headDim: hd } = d.geometry;
  const qLen = d.meta.qLenPerReq, P = d.meta.pageSize;
  const bits = new Uint16Array(d.output!.data as Uint16Array);
  const scratch = new Float32Array(q.length);
  const pairs: string[] = [];
  requests.forEach((req, b) => {
    for (let t = 0; t < qLen; t++) {
      const p = req.seqLen - qLen + t, lo = p - d.meta.windowLeft;
      if (lo <= 0 || lo % P !== 0) continue;
      const row = b * qLen + t;
      referenceAttention(q, scratch, { view: req.view, seqLen: p + 1, qLen: 1, rowStart: row }, { ...layer, windowLeft: p - (lo - P) });
      for (const h of heads) {
        const o = (row * Hq + h) * hd;
        for (let i = o; i < o + hd; i++) bits[i] = f32ToBf16Bits(scratch[i]);
        pairs.push(`${b}/${t}/${h}`);
      }
    }
  });
  return { dump: { ...d, output: makeTensor('BF16', d.output!.shape, bits) }, pairs };
}
