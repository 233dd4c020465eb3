/**
 * `faultline probe` with the canary flags, in process against the fake servers: one round for a
 * CronJob (--prometheus-textfile, exit by verdict), the loop with /metrics stopped by SIGTERM, the
 * usage errors, and the examples/canary manifests' args as written.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { parseExposition, sampleValue } from '../../../test/helpers/prometheus.js';
import { startFakeServer, type FakeServer } from '../../probe/testing/fake-server.js';
import { trainByteNgram } from '../../probe/testing/ngram-lm.js';
import { VERSION } from '../../core/version.js';
import { CATALOG_VERSION } from '../../hazards/catalog-list.js';
import { memoryIO } from '../io.js';
import { main } from '../main.js';

const promptText = fileURLToPath(new URL('../../../test/fixtures/probe/prose-sample.txt', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'faultline-canary-cli-'));
let reference: FakeServer;
let corrupt: FakeServer;

before(async () => {
  const lm = trainByteNgram(readFileSync(promptText, 'utf8'), 5);
  reference = await startFakeServer({ lm });
  corrupt = await startFakeServer({ lm, corruption: { afterPosition: 32, rate: 0.15, boost: 20, seed: 3 } });
});
after(async () => {
  await Promise.all([reference.close(), corrupt.close()]);
});

const common = ['--window', '32', '--page-size', '8', '--prompt-text', promptText, '--max-tokens', '24', '--requests', '40'];

function start(args: string[]) {
  const io = memoryIO();
  return { io, done: main(['probe', ...args], io) };
}

async function probe(args: string[]) {
  const { io, done } = start(args);
  const code = await done;
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

test('one round with --prometheus-textfile (a CronJob): exit by verdict, the usual report, the file replaced each run', async () => {
  const file = join(dir, 'faultline.prom');
  const clean = await probe(['--target', reference.url, '--reference', reference.url, ...common, '--prometheus-textfile', file, '--format', 'json']);
  assert.equal(clean.code, 0, clean.stderr);
  assert.equal((JSON.parse(clean.stdout) as { verdict: string }).verdict, 'CLEAN');
  let m = parseExposition(readFileSync(file, 'utf8'));
  assert.equal(sampleValue(m, 'faultline_probe_verdict', { target: reference.url, verdict: 'clean' }), 1);
  assert.match(clean.stderr, /first verdict CLEAN/);
  assert.equal(sampleValue(m, 'faultline_build_info', { version: VERSION, catalog: String(CATALOG_VERSION) }), 1);

  const bad = await probe(['--target', corrupt.url, '--reference', reference.url, ...common, '--prometheus-textfile', file]);
  assert.equal(bad.code, 1, bad.stderr);
  assert.match(bad.stdout, /^faultline probe: CORRUPT/);
  m = parseExposition(readFileSync(file, 'utf8'));
  assert.equal(sampleValue(m, 'faultline_probe_verdict', { target: corrupt.url, verdict: 'corrupt' }), 1);
  assert.equal(sampleValue(m, 'faultline_probe_verdict', { target: reference.url, verdict: 'clean' }), undefined, 'the previous run is replaced');
  assert.deepEqual(readdirSync(dir).filter((f) => f.includes('.tmp')), [], 'no temporary file left behind');
});

test('--every with --metrics-port 0: /metrics answers during the loop, one stdout line per round; SIGTERM stops it with exit 0', async () => {
  const out = join(dir, 'latest.json');
  const { io, done } = start(['--target', corrupt.url, '--reference', reference.url, ...common, '--every', '1s', '--metrics-port', '0', '--out', out]);
  const deadline = Date.now() + 30_000;
  let url: string | undefined;
  let m: ReturnType<typeof parseExposition> = [];
  while (Date.now() < deadline) {
    url ??= /metrics on (http:\/\/\S+)/.exec(io.stderr())?.[1];
    if (url) {
      const res = await fetch(url);
      assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
      m = parseExposition(await res.text());
      if ((sampleValue(m, 'faultline_probe_rounds_total', { target: corrupt.url, verdict: 'corrupt' }) ?? 0) >= 2) break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(url, `no metrics line; stderr: ${io.stderr()}`);
  assert.equal(sampleValue(m, 'faultline_probe_verdict', { target: corrupt.url, verdict: 'corrupt' }), 1, io.stderr());
  assert.equal((await fetch(url!.replace('/metrics', '/nope'))).status, 404);
  process.emit('SIGTERM');
  assert.equal(await done, 0);
  const lines = io.stdout().trim().split('\n');
  assert.ok(lines.length >= 2);
  for (const line of lines) assert.match(line, /^\S+Z round \d+ CORRUPT: \d+ of \d+ judged requests corrupt, 0 failed \(\d+\.\d s\)$/);
  assert.equal(io.stderr().match(/verdict/g)?.length, 1, `one verdict line (the first); stderr: ${io.stderr()}`);
  assert.match(io.stderr(), /stopped after \d+ round\(s\)/);
  assert.equal((JSON.parse(readFileSync(out, 'utf8')) as { verdict: string }).verdict, 'CORRUPT');
  await assert.rejects(fetch(url!), 'the metrics server is closed');
});

test('--every with --format json: one JSON object per round on stdout', async () => {
  const { io, done } = start(['--target', reference.url, '--reference', reference.url, ...common, '--every', '1s', '--format', 'json']);
  const deadline = Date.now() + 30_000;
  while (io.stdout().split('\n').filter(Boolean).length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  process.emit('SIGINT');
  assert.equal(await done, 0, io.stderr());
  const rounds = io.stdout().trim().split('\n').map((l) => JSON.parse(l) as { round: number; startedAt: string; durationSeconds: number; verdict: string; counts: { judged: number } });
  assert.ok(rounds.length >= 2);
  rounds.forEach((r, i) => {
    assert.equal(r.round, i + 1);
    assert.equal(r.verdict, 'CLEAN');
    assert.ok(r.counts.judged >= 29 && r.durationSeconds > 0 && !Number.isNaN(Date.parse(r.startedAt)));
  });
});

test('canary usage errors exit 2 before anything is probed', async () => {
  const base = ['--target', corrupt.url, '--reference', reference.url, ...common];
  const cases: [string[], RegExp][] = [
    [['--every', '15'], /--every "15": not a duration/],
    [['--prometheus-textfile', join(dir, 'metrics.txt')], /only reads files ending in \.prom/],
    [['--prometheus-textfile', join(dir, 'missing', 'f.prom')], /cannot write --prometheus-textfile .*ENOENT/],
    [['--every', '1m', '--html', join(dir, 'r.html')], /--html goes with a single probe/],
    [['--metrics-port', '70000'], /--metrics-port "70000" must be a port number/],
    [['--metrics-host', '0.0.0.0'], /--metrics-host goes with --metrics-port/],
  ];
  for (const [extra, message] of cases) {
    const before = corrupt.calls.get('/v1/completions') ?? 0;
    const r = await probe([...base, ...extra]);
    assert.equal(r.code, 2, `${extra.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.match(r.stderr, /hint: /);
    assert.equal(corrupt.calls.get('/v1/completions') ?? 0, before, `${extra.join(' ')}: nothing probed`);
  }
  assert.equal(existsSync(join(dir, 'metrics.txt')), false);
});

/** An example manifest's container args, with its cluster URLs, paths and ports mapped onto this test's. */
function exampleArgs(file: string, map: Record<string, string>): string[] {
  const doc = parseYaml(readFileSync(fileURLToPath(new URL(`../../../examples/canary/${file}`, import.meta.url)), 'utf8')) as {
    spec: { template?: { spec: { containers: { args: string[] }[] } }; jobTemplate?: { spec: { template: { spec: { containers: { args: string[] }[] } } } } };
  };
  const pod = doc.spec.jobTemplate?.spec.template ?? doc.spec.template!;
  return pod.spec.containers[0].args.map((a) => {
    for (const [from, to] of Object.entries(map)) if (a === from) return to;
    assert.ok(!/^(http|\/)/.test(a) || a in map, `unmapped ${a}`);
    return a;
  });
}

test('the CronJob and Deployment examples run as written against a golden: JSON verdict, textfile, /metrics', async () => {
  const golden = join(dir, 'golden.json');
  const rec = await probe(['--target', reference.url, ...common, '--save-golden', golden]);
  assert.equal(rec.code, 0, rec.stderr);
  const verdict = join(dir, 'verdict.json');
  const textfile = join(dir, 'cron.prom');
  const paths = { 'http://vllm:8000': corrupt.url, 'http://vllm-reference:8000': reference.url, '/golden/golden.json': golden };
  const args = exampleArgs('cronjob.yaml', { ...paths, '/results/verdict.json': verdict, '/textfile/faultline.prom': textfile });
  assert.equal(args[0], 'probe');
  const cron = await probe(args.slice(1));
  assert.equal(cron.code, 1, cron.stderr);
  assert.equal((JSON.parse(readFileSync(verdict, 'utf8')) as { verdict: string }).verdict, 'CORRUPT');
  assert.equal(sampleValue(parseExposition(readFileSync(textfile, 'utf8')), 'faultline_probe_verdict', { target: corrupt.url, verdict: 'corrupt' }), 1);

  const loop = exampleArgs('deployment.yaml', { ...paths, '15m': '1s', '9464': '0', '0.0.0.0': '127.0.0.1' });
  const { io, done } = start(loop.slice(1));
  const deadline = Date.now() + 30_000;
  while (!/round 1 CORRUPT/.test(io.stdout()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const url = /metrics on (http:\/\/\S+)/.exec(io.stderr())?.[1];
  assert.ok(url, io.stderr());
  assert.equal(sampleValue(parseExposition(await (await fetch(url)).text()), 'faultline_probe_verdict', { target: corrupt.url, verdict: 'corrupt' }), 1);
  process.emit('SIGTERM');
  assert.equal(await done, 0, io.stderr());
});
