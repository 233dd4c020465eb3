/**
 * `faultline kernel verify` through the real CLI on PyTorch attention dumps captured on an H200
 * (test/fixtures/kernel/torch-attention): exit 0, in text and JSON. Every folder of them is verified
 * through the same verifyDump in src/kernel/torch-attention-fixtures.test.ts; two CLI runs keep this
 * end-to-end check cheap.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.js';

const FIXTURES = 'test/fixtures/kernel/torch-attention';

describe('faultline kernel verify on real PyTorch attention kernels (e2e)', () => {
  test('FlexAttention over a paged KV cache: 4 dumps within tolerance (exit 0, JSON)', async () => {
    const r = await runCli(['kernel', 'verify', `${FIXTURES}/flex-paged`, '--json', '--quiet']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const report = JSON.parse(r.stdout) as {
      ok: boolean;
      dumps: { ok: boolean; qLenPerReq: number; kernel: string; kernelVersion: string; faultyPairs: unknown[] }[];
    };
    assert.equal(report.ok, true);
    assert.deepEqual(report.dumps.map((d) => d.qLenPerReq), [1, 4, 8, 16]);
    for (const d of report.dumps) {
      assert.deepEqual(d.faultyPairs, []);
      assert.match(d.kernel, /^pytorch flex_attention, torch\.compile/);
      assert.match(d.kernelVersion, /^torch 2\.11\.0\+cu130, triton 3\.6\.0, cuda 13\.0, cudnn 91900, NVIDIA H200$/);
    }
  });

  test('SDPA with FlashAttention forced: 4 dumps within tolerance (exit 0, text)', async () => {
    const r = await runCli(['kernel', 'verify', `${FIXTURES}/sdpa-flash`]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /all 4 dump\(s\) within tolerance/);
    assert.match(r.stdout, /no wrong \(row, head\) pair in any dump/);
  });
});
