/**
 * Issue 6 acceptance over HTTP: `faultline probe` against two real `faultline engine serve`
 * processes (port 0). The canonical fault (sm100-affected bookkeeping, FP8 KV, BF16 Q, MTP k = 7)
 * must read CORRUPT on the window-crossing suite with every corrupt token past the sliding window,
 * and must read CLEAN on the short suite (prompt + output inside the window). The scale
 * defect (tiny-swa-qscale) must read CORRUPT on the short suite; its control (tiny-swa, q_scale 1.0)
 * must read CLEAN. A CLEAN verdict needs ≥ 29 clean requests by design of the sequential test, so the
 * clean-side tests send 30 short requests with short generations.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.js';
import { startServer, type ServerProcess } from '../e2e/server-harness.js';
import { AFFECTED_FP8_BF16Q, MTP7 } from '../helpers/canonical-launch.js';

interface Summary {
  verdict: string;
  counts: { judged: number; corrupt: number; failed: number };
  corruptPositions: { count: number; withinWindow: number; pastWindow: number };
}

const REFERENCE = ['--kv-cache-dtype', 'bfloat16'];
// a loaded 2-core machine serves these slowly; the probe itself stops early
const PROBE_TIMEOUT_MS = 240_000;

async function probe(target: ServerProcess, reference: ServerProcess, model: string, extra: string[]) {
  const r = await runCli(
    ['probe', '--target', target.url, '--reference', reference.url, '--model-config', model, '--format', 'json', '--concurrency', '2', ...extra],
    { timeoutMs: PROBE_TIMEOUT_MS },
  );
  assert.notEqual(r.stdout, '', `no report; stderr: ${r.stderr}`);
  return { code: r.code, summary: JSON.parse(r.stdout) as Summary, stderr: r.stderr };
}

describe('canonical fault (sm100-affected, FP8 KV, BF16 Q, MTP k=7) vs a BF16-KV reference', { timeout: 600_000 }, () => {
  let reference: ServerProcess;
  let candidate: ServerProcess;
  before(async () => {
    [reference, candidate] = await Promise.all([
      startServer(['--model', 'models/tiny-swa', ...REFERENCE], 60_000),
      startServer(['--model', 'models/tiny-swa', ...AFFECTED_FP8_BF16Q, ...MTP7], 60_000),
    ]);
  });
  after(async () => {
    await Promise.all([reference?.stop(), candidate?.stop()]);
  });

  test('window-crossing suite → CORRUPT (exit 1), every corrupt token past the window', async () => {
    const { code, summary, stderr } = await probe(candidate, reference, 'models/tiny-swa', ['--requests', '16', '--max-tokens', '64']);
    assert.equal(summary.verdict, 'CORRUPT', stderr);
    assert.equal(code, 1);
    assert.equal(summary.counts.failed, 0);
    assert.ok(summary.corruptPositions.count > 0);
    assert.equal(summary.corruptPositions.withinWindow, 0);
    assert.equal(summary.corruptPositions.pastWindow, summary.corruptPositions.count);
  });

  test('short suite (everything inside the window) → CLEAN', async () => {
    // 30 short requests: the sequential test needs ≥ 29 clean ones to bound the corrupt rate under 10%
    const { code, summary, stderr } = await probe(candidate, reference, 'models/tiny-swa', ['--suite', 'short', '--requests', '30', '--max-tokens', '16']);
    assert.equal(summary.verdict, 'CLEAN', stderr);
    assert.equal(code, 0);
    assert.equal(summary.counts.corrupt, 0);
  });
});

describe('scale defect on the short suite (sm100-affected, FP8 KV, BF16 Q, no speculation)', { timeout: 600_000 }, () => {
  let refQ: ServerProcess;
  let candQ: ServerProcess;
  let refPlain: ServerProcess;
  let candPlain: ServerProcess;
  before(async () => {
    [refQ, candQ, refPlain, candPlain] = await Promise.all([
      startServer(['--model', 'models/tiny-swa-qscale', ...REFERENCE], 60_000),
      startServer(['--model', 'models/tiny-swa-qscale', ...AFFECTED_FP8_BF16Q], 60_000),
      startServer(['--model', 'models/tiny-swa', ...REFERENCE], 60_000),
      startServer(['--model', 'models/tiny-swa', ...AFFECTED_FP8_BF16Q], 60_000),
    ]);
  });
  after(async () => {
    await Promise.all([refQ?.stop(), candQ?.stop(), refPlain?.stop(), candPlain?.stop()]);
  });

  test('tiny-swa-qscale → CORRUPT (exit 1)', async () => {
    const { code, summary, stderr } = await probe(candQ, refQ, 'models/tiny-swa-qscale', ['--suite', 'short', '--requests', '12', '--max-tokens', '32']);
    assert.equal(summary.verdict, 'CORRUPT', stderr);
    assert.equal(code, 1);
  });

  test('tiny-swa (q_scale 1.0), same flags → CLEAN', async () => {
    const { code, summary, stderr } = await probe(candPlain, refPlain, 'models/tiny-swa', ['--suite', 'short', '--requests', '30', '--max-tokens', '16']);
    assert.equal(summary.verdict, 'CLEAN', stderr);
    assert.equal(code, 0);
    assert.equal(summary.counts.corrupt, 0);
  });
});
