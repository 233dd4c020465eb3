import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../../test/helpers/cli.js';
import { startFakeServer, type FakeServer } from '../../probe/testing/fake-server.js';
import { trainByteNgram, type LanguageModel } from '../../probe/testing/ngram-lm.js';
import { memoryIO } from '../io.js';
import { main } from '../main.js';

const promptText = fileURLToPath(new URL('../../../test/fixtures/probe/prose-sample.txt', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'faultline-probe-cli-'));
let lm: LanguageModel;
let reference: FakeServer;
let corrupt: FakeServer;
let broken: FakeServer;
const KEY = 'sk-probe-test-secret';

before(async () => {
  lm = trainByteNgram(readFileSync(promptText, 'utf8'), 5);
  reference = await startFakeServer({ lm });
  corrupt = await startFakeServer({ lm, corruption: { afterPosition: 32, rate: 0.15, boost: 20, seed: 3 } });
  broken = await startFakeServer({
    lm,
    faults: (p) => (p === '/v1/completions' ? { kind: 'status', status: 500 } : undefined),
  });
});
after(async () => {
  await Promise.all([reference.close(), corrupt.close(), broken.close()]);
});

const common = [
  '--window',
  '32',
  '--page-size',
  '8',
  '--prompt-text',
  promptText,
  '--max-tokens',
  '24',
  '--requests',
  '40',
];

async function probe(args: string[], env: NodeJS.ProcessEnv = {}) {
  const io = memoryIO({ env });
  const code = await main(['probe', ...args], io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

test('--html writes a self-contained report of the run next to the verdict', async () => {
  const html = join(dir, 'probe-report.html');
  const r = await probe(['--target', corrupt.url, '--reference', reference.url, ...common, '--html', html]);
  assert.equal(r.code, 1, r.stderr);
  const page = readFileSync(html, 'utf8');
  assert.match(page, /Content-Security-Policy/);
  assert.match(page, /CORRUPT/);
  assert.doesNotMatch(page, /<script/i);
});

test('CORRUPT: exit 1, the verdict, where it sits and marked examples', async () => {
  const r = await probe(['--target', corrupt.url, '--reference', reference.url, ...common]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stdout, /faultline probe: CORRUPT/);
  assert.match(r.stdout, /where {6}all \d+ past the window/);
  assert.match(r.stdout, /candidate: .*⟦/);
});

test('CLEAN: exit 0; JSON on stdout, the full report with exchanges in --out', async () => {
  const out = join(dir, 'report.json');
  const r = await probe([
    '--target',
    reference.url,
    '--reference',
    reference.url,
    ...common,
    '--format',
    'json',
    '--out',
    out,
  ]);
  assert.equal(r.code, 0, r.stderr);
  const summary = JSON.parse(r.stdout);
  assert.equal(summary.verdict, 'CLEAN');
  assert.equal(summary.counts.identical, 29);
  assert.equal(summary.requests[0].verdict, 'identical');
  const full = JSON.parse(readFileSync(out, 'utf8'));
  assert.equal(full.requests[0].candidate.tokens.length, full.requests[0].maxTokens);
});

test('INCONCLUSIVE: a target that fails every request exits 3 and lists the errors', async () => {
  const r = await probe(['--target', broken.url, '--reference', reference.url, ...common, '--requests', '5']);
  assert.equal(r.code, 3);
  assert.match(r.stdout, /INCONCLUSIVE/);
  assert.match(r.stdout, /× POST \/v1\/completions: HTTP 500/);
});

test('the short suite on the corrupting server is CLEAN', async () => {
  const r = await probe([
    '--target',
    corrupt.url,
    '--reference',
    reference.url,
    ...common,
    '--suite',
    'short',
  ]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
});

test('save a golden from the reference, then probe against it', async () => {
  const g = join(dir, 'golden.json');
  const rec = await probe(['--target', reference.url, '--save-golden', g, ...common, '--requests', '30']);
  assert.equal(rec.code, 0, rec.stdout + rec.stderr);
  assert.match(rec.stdout, /recorded 30 exchanges/);
  const bad = await probe(['--target', corrupt.url, '--golden', g, '--page-size', '8']);
  assert.equal(bad.code, 1, bad.stdout);
  assert.match(bad.stdout, /reference {2}golden /);
  const good = await probe(['--target', reference.url, '--golden', g]);
  assert.equal(good.code, 0, good.stdout);
});

test('--model-config reads the window from the model (tiny-swa: 128)', async () => {
  const modelConfig = fileURLToPath(new URL('../../../models/tiny-swa/config.json', import.meta.url));
  const r = await probe([
    '--target',
    reference.url,
    '--reference',
    reference.url,
    '--model-config',
    modelConfig,
    '--suite',
    'short',
    '--requests',
    '3',
    '--max-tokens',
    '8',
    '--prompt-text',
    promptText,
    '--format',
    'json',
  ]);
  assert.equal(r.code, 3, r.stderr);
  assert.equal(JSON.parse(r.stdout).settings.window, 128);
});

test('usage errors exit 2 with a hint, no stack trace', async () => {
  const cases: [string[], RegExp][] = [
    [['--target', reference.url, ...common], /needs something to compare against/],
    [['--target', 'ftp://x', '--reference', reference.url, ...common], /not an http\(s\) URL/],
    [
      ['--target', reference.url, '--reference', reference.url, '--window', 'abc'],
      /--window "abc" must be an integer/,
    ],
    [['--target', reference.url, '--reference', reference.url], /needs the model's sliding window/],
    [['--target', reference.url, '--reference', reference.url, '--suite', 'nope'], /unknown suite/],
    [['--target', reference.url, '--golden', join(dir, 'missing.json')], /cannot read golden file/],
    [
      [
        '--target',
        reference.url,
        '--reference',
        reference.url,
        ...common,
        '--api-key-env',
        'FAULTLINE_NO_SUCH_VAR',
      ],
      /FAULTLINE_NO_SUCH_VAR: that environment variable is not set/,
    ],
  ];
  for (const [args, pattern] of cases) {
    const r = await probe(args);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, pattern);
    assert.doesNotMatch(r.stderr, /at .*\.ts:\d+/);
  }
});

test('end to end as a process: the API key from --api-key-env reaches the server and is never printed', async () => {
  const guarded = await startFakeServer({ lm, apiKey: KEY });
  try {
    const ok = await runCli(
      [
        'probe',
        '--target',
        guarded.url,
        '--reference',
        guarded.url,
        ...common,
        '--requests',
        '30',
        '--api-key-env',
        'PROBE_KEY',
      ],
      { env: { PROBE_KEY: KEY } },
    );
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /CLEAN/);
    const wrong = await runCli(
      [
        'probe',
        '--target',
        guarded.url,
        '--reference',
        guarded.url,
        ...common,
        '--requests',
        '3',
        '--api-key-env',
        'PROBE_KEY',
        '--format',
        'json',
      ],
      {
        env: { PROBE_KEY: 'sk-wrong-and-secret' },
      },
    );
    assert.equal(wrong.code, 3);
    assert.doesNotMatch(wrong.stdout + wrong.stderr, /sk-wrong-and-secret/);
    assert.match(wrong.stdout, /HTTP 401/);
  } finally {
    await guarded.close();
  }
});
