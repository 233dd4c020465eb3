/**
 * The bmm1/bmm2 audit (acceptance): with BF16 Q the affected policy's logits factor is q_scale on
 * the decode path and q_scale·k_scale (k applied twice) with output × v_scale on the forced prefill
 * path; the fixed policy and unit scales give 1.0; FP8-Q and XQA paths are right under both policies.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { UserError } from '../core/errors.js';
import { auditScales, type ScaleAuditInput } from './scales.js';

const base: ScaleAuditInput = { qDtype: 'bf16', kvDtype: 'fp8_e4m3', qScale: 0.02, kScale: 0.009, vScale: 0.011, smScale: 0.125, path: 'trtllm-decode', policy: 'vllm-affected' };
const close = (a: number, b: number) => Math.abs(a - b) <= 1e-12 * Math.abs(b);

describe('kernel scales audit', () => {
  test('BF16 Q decode, vllm-affected: logits × q_scale, output × 1', () => {
    const r = auditScales(base);
    assert.ok(close(r.logitsFactor, base.qScale));
    assert.equal(r.logitsFactorIs, 'q_scale');
    assert.ok(close(r.outputFactor, 1));
    assert.equal(r.correct, false);
    assert.ok(close(r.passed.bmm1, 0.125 * 0.02 * 0.009));
    assert.ok(close(r.expected.bmm1, 0.125 * 0.009));
  });

  test('BF16 Q forced trtllm prefill, vllm-affected: k and v applied twice (logits × q·k, output × v)', () => {
    const r = auditScales({ ...base, path: 'trtllm-prefill' });
    assert.equal(r.passed.dequantizeKvFirst, true);
    assert.ok(close(r.logitsFactor, base.qScale * base.kScale));
    assert.equal(r.logitsFactorIs, 'q_scale·k_scale');
    assert.ok(close(r.outputFactor, base.vScale));
    assert.equal(r.outputFactorIs, 'v_scale');
    assert.ok(r.notes.some((n) => n.includes('applied twice')));
  });

  test('native wrappers, vllm-affected, BF16 Q: q_scale applied to a query never quantized', () => {
    assert.ok(close(auditScales({ ...base, path: 'native' }).logitsFactor, base.qScale));
  });

  for (const path of ['trtllm-decode', 'trtllm-prefill', 'native', 'xqa'] as const)
    test(`${path}: unit scales give 1.0 under the affected policy; the fixed policy is always right`, () => {
      const unit = auditScales({ ...base, path, qScale: 1, kScale: 1, vScale: 1 });
      assert.equal(unit.logitsFactor, 1);
      assert.equal(unit.outputFactor, 1);
      assert.equal(unit.correct, true);
      assert.equal(auditScales({ ...base, path, policy: 'fixed' }).correct, true);
      assert.equal(auditScales({ ...base, path, qDtype: 'fp8' }).correct, true); // FP8 Q: q_scale belongs in bmm1
    });

  test('XQA decode is right under both policies (get_xqa_bmm1_scale)', () => {
    assert.equal(auditScales({ ...base, path: 'xqa' }).correct, true);
  });

  test('BF16 KV: no scales anywhere', () => {
    const r = auditScales({ ...base, kvDtype: 'bf16' });
    assert.equal(r.correct, true);
    assert.equal(r.passed.bmm1, 0.125);
  });

  test('bad input is a UserError', () => {
    assert.throws(() => auditScales({ ...base, qDtype: 'fp8', kvDtype: 'bf16' }), UserError);
    assert.throws(() => auditScales({ ...base, kScale: 0 }), UserError);
    assert.throws(() => auditScales({ ...base, vScale: NaN }), UserError);
  });
});
