/**
 * `probe --suite workload` over HTTP against `engine serve` with a stateful fault model: CORRUPT,
 * with the workload feature named, and the saved trace replayed on a freshly started target
 * corrupts the same first request. The full sweep (every fault model, window-crossing alongside, the
 * benign configurations) is bench/workload.ts.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkloadReport } from '../../src/probe/workload/report.js';
import { runCli } from '../helpers/cli.js';
import { startServer, type ServerProcess } from '../e2e/server-harness.js';

const MODEL = ['--model', 'models/tiny-swa', '--max-model-len', '512'];
const FAULTY = [...MODEL, '--enable-prefix-caching', '--num-gpu-blocks-override', '40', '--max-num-batched-tokens', '128', '--stateful-fault-model', 'stale-prefix-hash'];
let reference: ServerProcess;
let dir: string;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'faultline-probe-workload-'));
  reference = await startServer(MODEL, 60_000);
});
after(async () => {
  await reference?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Probes a freshly started faulty target; `report` is the --out file (a workload report unless several suites ran). */
async function probeFresh(args: string[], out: string): Promise<{ code: number | null; report: WorkloadReport; stdout: string }> {
  const target = await startServer(FAULTY, 60_000);
  try {
    const r = await runCli(['probe', '--target', target.url, '--reference', reference.url, '--window', '128', '--max-tokens', '16', '--out', out, ...args], { timeoutMs: 240_000 });
    return { code: r.code, stdout: r.stdout + r.stderr, report: JSON.parse(readFileSync(out, 'utf8')) as WorkloadReport };
  } finally {
    await target.stop();
  }
}

test('stale-prefix-hash: the workload suite reads CORRUPT after an eviction, and the replayed trace corrupts the same first request', { timeout: 600_000 }, async () => {
  const trace = join(dir, 'trace.json');
  const first = await probeFresh(['--suite', 'workload', '--rounds', '6', '--save-trace', trace], join(dir, 'first.json'));
  assert.equal(first.code, 1, first.stdout);
  assert.match(first.stdout, /CORRUPT/);
  const corrupt = first.report.requests.filter((q) => q.outcome === 'corrupt');
  assert.ok(corrupt.some((q) => q.features.includes('after-eviction')), first.stdout);
  assert.ok(first.report.features.find((f) => f.feature === 'after-eviction')!.corrupt >= 1);
  const again = await probeFresh(['--replay', trace], join(dir, 'again.json'));
  assert.equal(again.report.settings.replayed, true);
  // The first corrupt request reproduced in every run, loaded or not. The later ones depend on how
  // the server batched each burst, which a replay cannot repeat (src/probe/README.md): under load
  // a replay can miss them and end INCONCLUSIVE (exit 3) on the first alone, never CLEAN.
  const replayed = again.report.requests.filter((q) => q.outcome === 'corrupt').map((q) => q.id);
  assert.ok(again.code === 1 || again.code === 3, again.stdout);
  assert.equal(replayed[0], corrupt[0].id, `first run ${corrupt.map((q) => q.id).join(', ')}; replay ${replayed.join(', ')}`);
});

test('--suite workload,window-crossing on the same server: workload CORRUPT, window-crossing one request at a time CLEAN, so CORRUPT (exit 1)', { timeout: 600_000 }, async () => {
  // One window-crossing request in flight at a time: with 4, a sequence preempted for lack of
  // blocks is recomputed through its own prefix keys, and a block evicted meanwhile can be one of
  // them, so the window-crossing suite itself meets the stale block now and then (seen: 2 of 22
  // requests, INCONCLUSIVE). The workload suite keeps its own schedule of bursts.
  const r = await probeFresh(['--suite', 'workload,window-crossing', '--rounds', '6', '--concurrency', '1', '--format', 'json'], join(dir, 'both.json'));
  assert.equal(r.code, 1, r.stdout);
  const both = JSON.parse(readFileSync(join(dir, 'both.json'), 'utf8')) as { verdict: string; suites: { suite: string; report: { verdict: string; reason: string } }[] };
  assert.equal(both.verdict, 'CORRUPT');
  assert.deepEqual(both.suites.map((s) => [s.suite, s.report.verdict]), [['workload', 'CORRUPT'], ['window-crossing', 'CLEAN']], `requests one at a time never reach the stale block: ${both.suites.map((s) => s.report.reason).join('; ')}`);
});

test('the workload suite without --reference, or with a broken trace: a usage error (exit 2)', async () => {
  const noRef = await runCli(['probe', '--suite', 'workload', '--target', reference.url]);
  assert.equal(noRef.code, 2);
  assert.match(noRef.stderr, /needs --reference/);
  const broken = await runCli(['probe', '--replay', 'package.json', '--target', reference.url, '--reference', reference.url]);
  assert.equal(broken.code, 2);
  assert.match(broken.stderr, /package\.json is not a workload trace/);
});
