/**
 * The serving stacks' own attention kernels on an H200 (provenance: test/fixtures/kernel/upstream/
 * README.md and one README per kernel family): FlashInfer's XQA decode kernels at HEAD (as dispatched,
 * and with the SM90 FP8 kernel forced for spec-decode) and at v0.6.15, vLLM's Triton unified attention
 * at the commit it shipped with torch 2.11 and before PR #42080, SGLang's Triton decode with its own
 * window builder. Re-verified on every run against the float64 reference with the band of each
 * kernel's declared arithmetic (tolerance.ts). Each dump's expected verdict is what verify said when
 * the capture came back; a wrong dump must also be explained, every examined pair, by the named
 * mechanism — the check that the localization names the real defect, not only that outputs differ.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { characterize } from './characterize.js';
import { readKernelDump } from './dump-format.js';
import { POISON_READ } from './hypotheses.js';
import { verifyDump } from './verify.js';

const root = fileURLToPath(new URL('../../test/fixtures/kernel/upstream/', import.meta.url));
const versions = JSON.parse(readFileSync(join(root, 'versions.json'), 'utf8')) as Record<string, string>;

const T = 'swa-tile-offsets__kvfp8_qbf16_', B = 'swa-tile-offsets__kvbf16_qbf16_', Q8 = 'swa-tile-offsets__kvfp8_qfp8_';
const L = 'swa-tile-offsets-large__kvfp8_qbf16_', LQ8 = 'swa-tile-offsets-large__kvfp8_qfp8_';
const FIRST64 = "the first draft row's window start rounded down to a 64-key tile";
const LAST64 = "the last draft row's window start rounded down to a 64-key tile";
const ANY256 = "the first draft row's window start rounded down to a 256-key tile";
const ONE_KEY = 'window start one key late';
const SCALES = 'q scale dropped, k scale dropped, v scale dropped';

/** dump → null (within the band) or the mechanism that explains every examined wrong pair. */
const EXPECTED: Record<string, { family: string; kernel: RegExp; dumps: Record<string, string | null> }> = {
  'xqa-head': {
    family: 'flashinfer-xqa',
    kernel: /^flashinfer xqa .* @fb28d724, dispatch as flashinfer\/xqa\.py$/,
    dumps: {
      [`${T}w64_qlen01`]: null,
      [`${T}w64_qlen04`]: null,
      [`${T}w64_qlen16`]: null,
      [`${T}wnone_qlen16`]: null,
      'nan-before-window__kvfp8_qbf16_w64_qlen01': POISON_READ,
      'nan-before-window__kvfp8_qbf16_w64_qlen08': POISON_READ,
      'nan-past-end__kvfp8_qbf16_w64_qlen01': POISON_READ,
    },
  },
  'xqa-head-sm90-forced': {
    family: 'flashinfer-xqa',
    kernel: /^flashinfer xqa mha_sm90\.cu FORCED for q_len > 1 @fb28d724$/,
    dumps: { [`${T}w64_qlen04`]: FIRST64, [`${T}w64_qlen16`]: FIRST64, [`${T}wnone_qlen16`]: null, [`${L}w256_qlen16`]: null },
  },
  'xqa-v0615': {
    family: 'flashinfer-xqa',
    kernel: /^flashinfer xqa .* @v0\.6\.15 8eccd0c1, dispatch as flashinfer\/xqa\.py$/,
    dumps: { [`${T}w64_qlen08`]: LAST64, [`${T}wnone_qlen08`]: null, [`${B}w64_qlen08`]: ANY256, [`${B}wnone_qlen08`]: null, [`${L}w256_qlen16`]: LAST64 },
  },
  'vllm-triton-head': {
    family: 'vllm-triton',
    kernel: /^vllm triton_unified_attention \(TRITON_ATTN\) @017e9f44, as triton_attn\.py calls it$/,
    dumps: { [`${Q8}w64_qlen08`]: null, [`${T}w64_qlen08`]: null, [`${T}w64_qlen01`]: null, [`${B}w64_qlen08`]: null, [`${LQ8}w256_qlen16`]: null, 'nan-before-window__kvfp8_qbf16_w64_qlen01': null },
  },
  'vllm-triton-head-2d': {
    family: 'vllm-triton',
    kernel: /@017e9f44, 2D kernel for q_len 1$/,
    dumps: { [`${T}w64_qlen01`]: null, [`${Q8}w64_qlen01`]: null },
  },
  'vllm-triton-pre42080': {
    family: 'vllm-triton',
    kernel: /@8200fbe1 \(before PR #42080\)/,
    dumps: { [`${Q8}w64_qlen08`]: SCALES, [`${Q8}wnone_qlen01`]: SCALES, [`${T}w64_qlen08`]: null },
  },
  'sglang-triton-decode': {
    family: 'sglang-triton',
    kernel: /^sglang Triton backend decode \(update_sliding_window_buffer \+ decode_attention_fwd\) @03cd2ec4$/,
    dumps: { [`${B}w64_qlen01`]: ONE_KEY, [`${B}wnone_qlen01`]: null, [`${T}w64_qlen01`]: ONE_KEY, [`${T}wnone_qlen01`]: null, [`${L}w256_qlen01`]: ONE_KEY },
  },
};

describe('serving-stack attention kernels on an H200', () => {
  test('the captures ran on the machine their record names', () => {
    assert.equal(versions.gpu, 'NVIDIA H200');
    assert.equal(versions.capability, '9.0');
    assert.match(versions.torch, /^2\.11\./);
    assert.equal(versions.triton, '3.6.0');
  });

  for (const [variant, want] of Object.entries(EXPECTED))
    test(`${variant}: ${Object.values(want.dumps).filter((m) => m).length} wrong dump(s), each explained by its mechanism; the rest within the band`, () => {
      const dir = join(root, want.family, variant);
      const files = readdirSync(dir).filter((f) => f.endsWith('.safetensors')).sort();
      assert.deepEqual(files, Object.keys(want.dumps).map((d) => `${d}.safetensors`).sort());
      for (const [name, mechanism] of Object.entries(want.dumps)) {
        const d = readKernelDump(join(dir, `${name}.safetensors`));
        assert.match(d.meta.kernel ?? '', want.kernel, name);
        assert.equal(d.meta.extra.capture_variant, variant);
        assert.equal(d.meta.extra.repeat_bitwise_equal, 'true', `${name}: two runs gave different bits`);
        assert.match(d.meta.extra.kernel_arithmetic ?? '', /^(fp8|bf16)$/, name);
        const r = verifyDump(d, { kind: 'auto' });
        if (mechanism === null) {
          assert.equal(r.ok, true, `${name}: ${r.mismatches} mismatches in ${r.faultyPairs.length} pairs, first ${JSON.stringify(r.faultyPairs[0])}`);
          assert.ok(r.maxAbsError > 0, `${name}: a real kernel's rounding, not a copy of the reference`);
          continue;
        }
        assert.equal(r.ok, false, `${name}: expected errors (${mechanism})`);
        const ch = characterize([r]);
        assert.ok(ch.mechanism, name);
        assert.ok([ch.mechanism.name, ...ch.mechanism.ties].includes(mechanism), `${name}: ${JSON.stringify(ch.mechanism)}`);
        assert.equal(ch.mechanism.share, 1, `${name}: ${mechanism} explains ${ch.mechanism.pairs} of ${ch.pairsExamined}`);
        if (mechanism === POISON_READ) assert.equal(r.nonFinite, r.mismatches, `${name}: every wrong element is NaN`);
      }
    });

  test('FlashInfer XQA and SGLang refuse an FP8 query, as their own APIs do; nothing else was refused or failed', () => {
    for (const [variant, { family }] of Object.entries(EXPECTED)) {
      const refused = JSON.parse(readFileSync(join(root, family, variant, 'refused.json'), 'utf8')) as Record<string, string>;
      for (const [dump, why] of Object.entries(refused)) {
        assert.match(dump, /_qfp8_/, `${variant}: ${dump} refused or failed: ${why}`);
        assert.match(why, /FP8 query|model dtype/, `${variant}: ${dump}`);
      }
      if (variant.startsWith('vllm')) assert.deepEqual(refused, {});
    }
  });

  test('the controls: no window and seq_len below the window are clean on every kernel but the scale-dropping one', () => {
    const results = Object.entries(EXPECTED).flatMap(([variant, { family, dumps }]) =>
      Object.keys(dumps)
        .filter((n) => !n.startsWith('nan-'))
        .map((n) => ({ variant, r: verifyDump(readKernelDump(join(root, family, variant, `${n}.safetensors`)), { kind: 'auto' }) })),
    );
    for (const { variant, r } of results) {
      if (variant.includes('pre42080') && r.qDtype === 'fp8_e4m3') continue; // wrong everywhere: the scales, not the window
      if (r.windowLeft < 0) assert.equal(r.ok, true, `${variant} ${r.file}: no-window control`);
      for (const req of r.requests) if (r.windowLeft >= 0 && req.seqLen < r.windowLeft + 1) assert.equal(req.faultyPairs, 0, `${variant} ${r.file}: seq_len ${req.seqLen} < window`);
    }
  });

  test('SGLang drops the oldest key from seq_len = window on, the request the window first fills', () => {
    const r = verifyDump(readKernelDump(join(root, 'sglang-triton', 'sglang-triton-decode', `${B}w64_qlen01.safetensors`)), { kind: 'auto' });
    const at = (s: number) => r.requests.find((q) => q.seqLen === s)!;
    assert.equal(at(50).faultyPairs, 0);
    assert.ok(at(64).faultyPairs > 0, 'seq_len 64 = window: 63 keys kept');
    assert.ok(r.faultyPairs.filter((p) => p.request === r.requests.indexOf(at(64))).every((p) => p.matches.includes(ONE_KEY)));
  });
});
