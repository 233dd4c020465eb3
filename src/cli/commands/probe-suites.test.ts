/**
 * `probe --suite workload,window-crossing` in process, against fakes: both suites run and one
 * verdict combines them. One workload round on a clean fake judges too few requests for the
 * sequential test to decide, so the workload suite is INCONCLUSIVE there: a clean window probe must
 * not turn that into CLEAN. (The engine, which streams, is probed in test/slow.)
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeServer, type FakeServer } from '../../probe/testing/fake-server.js';
import { trainByteNgram } from '../../probe/testing/ngram-lm.js';
import { memoryIO } from '../io.js';
import { main } from '../main.js';

const promptText = fileURLToPath(new URL('../../../test/fixtures/probe/prose-sample.txt', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'faultline-probe-suites-'));
let reference: FakeServer;
let corrupt: FakeServer;
before(async () => {
  const lm = trainByteNgram(readFileSync(promptText, 'utf8'), 5);
  reference = await startFakeServer({ lm, maxModelLen: 256 });
  corrupt = await startFakeServer({ lm, maxModelLen: 256, corruption: { afterPosition: 32, rate: 0.15, boost: 20, seed: 3 } });
});
after(async () => {
  await Promise.all([reference.close(), corrupt.close()]);
  rmSync(dir, { recursive: true, force: true });
});

const common = ['--window', '32', '--page-size', '8', '--prompt-text', promptText, '--max-tokens', '12', '--requests', '40', '--rounds', '1'];
async function probe(args: string[]) {
  const io = memoryIO();
  const code = await main(['probe', ...args], io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}
type Combined = { suite: string; verdict: string; reason: string; suites: { suite: string; verdict: string }[] };

test('workload INCONCLUSIVE + window-crossing CLEAN: INCONCLUSIVE (exit 3), each suite reported in the order named', async () => {
  const out = join(dir, 'both.json');
  const r = await probe(['--suite', 'workload,window-crossing', '--target', reference.url, '--reference', reference.url, ...common, '--format', 'json', '--out', out]);
  assert.equal(r.code, 3, r.stderr);
  const json = JSON.parse(r.stdout) as Combined;
  assert.equal(json.suite, 'workload,window-crossing');
  assert.deepEqual(json.suites.map((s) => [s.suite, s.verdict]), [['workload', 'INCONCLUSIVE'], ['window-crossing', 'CLEAN']]);
  assert.equal(json.verdict, 'INCONCLUSIVE');
  const full = JSON.parse(readFileSync(out, 'utf8')) as { suites: { suite: string; report: { requests: unknown[] } }[] };
  assert.deepEqual(full.suites.map((s) => s.suite), ['workload', 'window-crossing']);
  assert.ok(full.suites.every((s) => s.report.requests.length > 0), 'the full reports, request by request');
});

test('a window-crossing CORRUPT makes the combined verdict CORRUPT (exit 1); the text leads with it', async () => {
  const r = await probe(['--suite', 'window-crossing,workload', '--target', corrupt.url, '--reference', reference.url, ...common]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stdout, /^faultline probe --suite window-crossing,workload: CORRUPT \(window-crossing (and workload )?found corruption \(window-crossing CORRUPT, workload (INCONCLUSIVE|CORRUPT)\)\)/);
  assert.match(r.stdout, /faultline probe --suite workload: /, "the workload suite's own report follows");
});

test('suite lists that cannot run are usage errors (exit 2) before any request; --help says how to combine', async () => {
  for (const [args, pattern] of [
    [['--suite', 'workload,workload'], /named twice/],
    [['--suite', 'workload,window-crossing', '--html', join(dir, 'x.html')], /--html draws window-crossing probes alone/],
    [['--suite', 'window-crossing', '--replay', join(dir, 'none.json')], /does not name the workload suite/],
    [['--suite', 'workload,window-crossing', '--every', '1m'], /cannot run the workload suite/],
  ] as const) {
    const r = await probe(['--target', reference.url, '--reference', reference.url, ...args]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, pattern);
  }
  const help = await probe(['--help']);
  assert.match(help.stdout, /--suite workload,window-crossing --target URL --reference URL/);
  assert.match(help.stdout, /CORRUPT if either is, CLEAN only if both are,\nINCONCLUSIVE otherwise/);
});
