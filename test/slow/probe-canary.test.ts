/**
 * The production canary against the engine: `faultline probe --every 2s --metrics-port 0
 * --prometheus-textfile F` watches a target behind a switchable proxy (a Service whose pods a rollout
 * replaces). The target starts as a clean launch (BF16 KV, like the reference) and is switched to
 * the canonical corrupt launch (sm100-affected, FP8 KV, BF16 Q, MTP k = 7); /metrics, read with an
 * independent exposition-format parser, must show faultline_probe_verdict flip from clean to corrupt,
 * the textfile must follow, and each verdict change must be one stderr line.
 *
 * Cost: three engine servers and two to three probe rounds of 30 window-crossing requests — about
 * 1.5 to 3 minutes on a 2-core machine loaded by other work (4.5 at a load average of 20), so it
 * is in the slow tier (`npm run test:slow`, run by .ci/run after `npm test`).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoRoot } from '../helpers/cli.js';
import { parseExposition, sampleValue, type ParsedFamily } from '../helpers/prometheus.js';
import { startSwitchProxy, type SwitchProxy } from '../helpers/switch-proxy.js';
import { startServer, type ServerProcess } from '../e2e/server-harness.js';
import { CANONICAL_CORRUPT } from '../helpers/canonical-launch.js';

const MODEL = ['--model', 'models/tiny-swa', '--max-model-len', '512'];
const CLEAN = ['--kv-cache-dtype', 'bfloat16'];
const mainTs = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'faultline-canary-e2e-'));

let reference: ServerProcess;
let clean: ServerProcess;
let corrupt: ServerProcess;
let proxy: SwitchProxy;

before(async () => {
  [reference, clean, corrupt] = await Promise.all([
    startServer([...MODEL, ...CLEAN], 60_000),
    startServer([...MODEL, ...CLEAN], 60_000),
    startServer([...MODEL, ...CANONICAL_CORRUPT], 60_000),
  ]);
  proxy = await startSwitchProxy(clean.url);
});
after(async () => {
  await Promise.all([reference?.stop(), clean?.stop(), corrupt?.stop(), proxy?.close()]);
});

const verdictOf = (m: ParsedFamily[], target: string) =>
  ['clean', 'corrupt', 'inconclusive', 'error'].find((v) => sampleValue(m, 'faultline_probe_verdict', { target, verdict: v }) === 1);

test('a target switched from the clean launch to the canonical corrupt launch flips faultline_probe_verdict from clean to corrupt', { timeout: 600_000 }, async (t) => {
  const textfile = join(work, 'faultline.prom');
  const canary = spawn(
    process.execPath,
    ['--import', 'tsx', mainTs, 'probe', '--target', proxy.url, '--reference', reference.url, '--model-config', 'models/tiny-swa',
      '--requests', '30', '--max-tokens', '16', '--concurrency', '2', '--every', '2s', '--metrics-port', '0', '--prometheus-textfile', textfile],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  canary.stdout.on('data', (d) => (stdout += d));
  canary.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => canary.on('close', (code) => resolve(code)));
  try {
    const deadline = Date.now() + 560_000;
    const observed: string[] = [];
    let switched = false;
    let last: ParsedFamily[] = [];
    while (Date.now() < deadline) {
      const url = /metrics on (http:\/\/\S+)/.exec(stderr)?.[1];
      if (url) {
        last = parseExposition(await (await fetch(url)).text());
        const v = verdictOf(last, proxy.url) ?? 'none';
        if (observed.at(-1) !== v) observed.push(v);
        if (v === 'clean' && !switched) {
          proxy.switchTo(corrupt.url); // the rollout: the same Service now reaches the corrupt launch
          switched = true;
        }
        if (switched && v === 'corrupt') break;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    t.diagnostic(`verdicts on /metrics: ${observed.join(' → ')}; rounds:\n${stdout.trim()}`);
    assert.deepEqual(
      observed.filter((v) => v === 'none' || v === 'clean' || v === 'corrupt').filter((v, i, a) => a.indexOf(v) === i),
      ['none', 'clean', 'corrupt'],
      `verdicts seen on /metrics: ${observed.join(' → ')}; stderr: ${stderr}`,
    );
    assert.ok(sampleValue(last, 'faultline_probe_requests_corrupt_total', { target: proxy.url })! > 0);
    assert.ok(sampleValue(last, 'faultline_probe_corrupt_request_ratio', { target: proxy.url })! > 0);
    assert.ok(sampleValue(last, 'faultline_probe_verdict_changes_total', { target: proxy.url })! >= 1);
    assert.equal(sampleValue(last, 'faultline_probe_errors_total', { target: proxy.url, kind: 'round' }), 0);
    // the textfile is written after the metrics are updated: it holds the same flip
    const file = parseExposition(readFileSync(textfile, 'utf8'));
    assert.equal(verdictOf(file, proxy.url), 'corrupt');

    // verdict changes: one line each, a chain from the first verdict CLEAN to CORRUPT
    const changes = stderr.split('\n').filter((l) => / (first verdict|verdict) [A-Z]/.test(l));
    assert.match(changes[0], /first verdict CLEAN \(round 1: 0 of 29 judged requests corrupt/);
    let at = 'CLEAN';
    for (const line of changes.slice(1)) {
      const m = /verdict (\w+) → (\w+) \(round \d+: /.exec(line);
      assert.ok(m, line);
      assert.equal(m[1], at, `each change starts from the previous verdict: ${line}`);
      at = m[2];
    }
    assert.equal(at, 'CORRUPT', changes.join('\n'));
    assert.match(stdout, /round 1 CLEAN: 0 of 29 judged requests corrupt/);
  } finally {
    canary.kill('SIGTERM');
  }
  assert.equal(await exited, 0, `the canary stops cleanly on SIGTERM; stderr: ${stderr}`);
  assert.match(stderr, /stopped after \d+ round\(s\)/);
});
