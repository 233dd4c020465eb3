/**
 * `faultline kernel` end to end through the real CLI: vectors → run-engine (fault MODEL) → verify,
 * the GPU fixtures, the scale audit, and bad input (exit 2, a message, no stack trace).
 */
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'faultline-kernel-e2e-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const noStack = (s: string) => assert.doesNotMatch(s, /\n\s+at /);

describe('faultline kernel (e2e)', () => {
  test('vectors → verify without outputs (2) → run-engine → verify localizes the fault model (1)', async () => {
    const vec = join(dir, 'vec');
    const v = await runCli(['kernel', 'vectors', '--out', vec, '--preset', 'kv-dtype-controls', '--seed', '4']);
    assert.equal(v.code, 0, v.stderr);
    assert.match(v.stdout, /wrote 4 dumps \(preset kv-dtype-controls, seed 4, calibrated scales\)/);

    const none = await runCli(['kernel', 'verify', vec]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /has no "output" tensor/);
    noStack(none.stderr);

    const e = await runCli(['kernel', 'run-engine', vec]);
    assert.equal(e.code, 0, e.stderr);
    assert.match(e.stdout, /fault model trtllm-gen-swa-specdec: a MODEL/);

    const j = await runCli(['kernel', 'verify', vec, '--json']);
    assert.equal(j.code, 1, j.stderr);
    const report = JSON.parse(j.stdout);
    assert.equal(report.ok, false);
    const failing = report.dumps.filter((d: { ok: boolean }) => !d.ok).map((d: { file: string }) => d.file.split('/').pop());
    assert.deepEqual(failing, ['kvfp8_qbf16_w64_qlen08.safetensors']);
    const controls = Object.fromEntries(report.characterization.controls.map((c: { name: string; verdict: string }) => [c.name, c.verdict]));
    assert.equal(controls['BF16 KV'], 'clean');
    assert.equal(controls['q_len ≤ 4'], 'clean');

    const t = await runCli(['kernel', 'verify', vec, '--max-pairs', '2']);
    assert.equal(t.code, 1);
    assert.match(t.stdout, /Localized errors \(request, query row, head\):/);
    assert.match(t.stdout, /reproduced by: keys shifted back one page/);
    assert.match(t.stdout, /1 of 4 dump\(s\) have outputs outside tolerance/);
  });

  test('the GPU fixtures verify clean (0)', async () => {
    const r = await runCli(['kernel', 'verify', 'test/fixtures/kernel/gpu/torch']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /all 2 dump\(s\) within tolerance/);
  });

  test('scales: the affected decode path is off by q_scale (1); unit scales are right (0)', async () => {
    const args = ['kernel', 'scales', '--q-dtype', 'bf16', '--kv-dtype', 'fp8_e4m3', '--path', 'trtllm-decode'];
    const wrong = await runCli([...args, '--q-scale', '0.25', '--k-scale', '0.5', '--v-scale', '2']);
    assert.equal(wrong.code, 1, wrong.stderr);
    assert.match(wrong.stdout, /logits × 0\.25 \(= q_scale\), output × 1/);
    const unit = await runCli([...args, '--q-scale', '1', '--k-scale', '1', '--v-scale', '1', '--json']);
    assert.equal(unit.code, 0, unit.stderr);
    assert.equal(JSON.parse(unit.stdout).logitsFactor, 1);
  });

  test('bad input: a non-dump file, a bad tolerance, a bad path → exit 2 with a message', async () => {
    const junk = join(dir, 'junk.safetensors');
    writeFileSync(junk, 'this is not a safetensors file at all');
    for (const args of [
      ['kernel', 'verify', junk],
      ['kernel', 'verify', 'test/fixtures/kernel/gpu/torch', '--tolerance', 'tight'],
      ['kernel', 'verify', join(dir, 'missing')],
      ['kernel', 'scales', '--q-dtype', 'fp8', '--kv-dtype', 'bf16', '--q-scale', '1', '--k-scale', '1', '--v-scale', '1', '--path', 'xqa'],
    ]) {
      const r = await runCli(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /^error: /m);
      noStack(r.stderr);
    }
  });
});
