/**
 * Issue 6 acceptance, benign side, over HTTP: a candidate whose numerics differ harmlessly from the
 * reference (batch-variant matmul reduction order under concurrent requests, FP8 KV on the fixed
 * sm100 path) must never read CORRUPT, while an exact-match oracle over the same recordings (the
 * `--out` report's token-level exchanges) raises false alarms. Few seeds and short generations keep
 * this fast; bench/oracle.ts measures the false-alarm rates over 20 seeds.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exactMatch } from '../../src/oracle/baselines.js';
import type { ProbeReport } from '../../src/probe/types.js';
import { runCli } from '../helpers/cli.js';
import { startServer, type ServerProcess } from '../e2e/server-harness.js';

let reference: ServerProcess;
let candidate: ServerProcess;
let dir: string;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'faultline-probe-benign-'));
  [reference, candidate] = await Promise.all([
    startServer(['--model', 'models/tiny-swa', '--kv-cache-dtype', 'bfloat16'], 60_000),
    startServer(['--model', 'models/tiny-swa', '--batch-variant-numerics', '--kv-cache-dtype', 'fp8_e4m3', '--emulate', 'sm100-fixed'], 60_000),
  ]);
});
after(async () => {
  await Promise.all([reference?.stop(), candidate?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

test('benign candidate: no CORRUPT verdict over several seeds; exact match raises false alarms on the same recordings', { timeout: 600_000 }, async (t) => {
  let exactAlarms = 0;
  let judged = 0;
  for (const seed of ['1', '2', '3']) {
    const out = join(dir, `seed-${seed}.json`);
    const r = await runCli(
      ['probe', '--target', candidate.url, '--reference', reference.url, '--model-config', 'models/tiny-swa', '--suite', 'short', '--requests', '4', '--max-tokens', '32', '--concurrency', '4', '--seed', seed, '--format', 'json', '--out', out],
      { timeoutMs: 240_000 },
    );
    assert.notEqual(r.code, 1, `seed ${seed}: ${r.stdout.slice(0, 400)} ${r.stderr}`);
    const report = JSON.parse(readFileSync(out, 'utf8')) as ProbeReport;
    assert.notEqual(report.verdict, 'CORRUPT');
    assert.equal(report.counts.corrupt, 0);
    assert.equal(report.counts.failed, 0);
    for (const req of report.requests) {
      assert.ok(req.reference && req.candidate, `seed ${seed} ${req.id}: missing generations`);
      judged++;
      if (!exactMatch(req.reference, req.candidate).pass) exactAlarms++;
    }
  }
  t.diagnostic(`exact match flagged ${exactAlarms}/${judged} benign requests; faultline 0 corrupt`);
  assert.equal(judged, 12);
  assert.ok(exactAlarms > 0, 'exact match should flag the benign numeric drift at least once');
});
