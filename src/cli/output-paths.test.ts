/**
 * Output paths through the real commands (in-process): checked before any work, parent
 * directories made, and a write that fails after the work (/dev/full: every write is ENOSPC)
 * prints the verdict first and keeps the verdict's exit status.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeServer, type FakeServer } from '../probe/testing/fake-server.js';
import { trainByteNgram } from '../probe/testing/ngram-lm.js';
import { memoryIO } from './io.js';
import { main } from './main.js';
import { prepareOutputDir, prepareOutputFile } from './output-paths.js';

const promptText = fileURLToPath(new URL('../../test/fixtures/probe/prose-sample.txt', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'faultline-outputs-'));
let reference: FakeServer;
let corrupt: FakeServer;
const common = ['--window', '32', '--page-size', '8', '--prompt-text', promptText, '--max-tokens', '24', '--requests', '40'];

before(async () => {
  const lm = trainByteNgram(readFileSync(promptText, 'utf8'), 5);
  reference = await startFakeServer({ lm });
  corrupt = await startFakeServer({ lm, corruption: { afterPosition: 32, rate: 0.15, boost: 20, seed: 3 } });
});
after(async () => {
  await Promise.all([reference.close(), corrupt.close()]);
  rmSync(dir, { recursive: true, force: true });
});

async function cli(args: string[]) {
  const io = memoryIO();
  const code = await main(args, io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

const completions = (s: FakeServer) => s.calls.get('/v1/completions') ?? 0;

test('prepareOutputFile makes missing parents and refuses a directory or a file standing in for a parent', () => {
  const nested = prepareOutputFile('--out', dir, 'a/b/c.json');
  assert.equal(nested, join(dir, 'a/b/c.json'));
  assert.ok(existsSync(join(dir, 'a/b')));
  assert.throws(() => prepareOutputFile('--out', dir, 'a'), /--out: .* is a directory, not a file/);
  writeFileSync(join(dir, 'plain'), 'x');
  assert.throws(() => prepareOutputFile('--html', dir, 'plain/r.html'), /--html: .*plain is a file/);
  assert.throws(() => prepareOutputDir('--out', dir, 'plain'), /--out: .*plain is a file, not a directory/);
  assert.equal(prepareOutputDir('--out', dir, 'new/run'), join(dir, 'new/run'));
});

test('probe --out into a missing directory: the directory is made and the report written', async () => {
  const out = join(dir, 'missing/deeper/report.json');
  const r = await cli(['probe', '--target', reference.url, '--reference', reference.url, ...common, '--out', out, '--format', 'json']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(readFileSync(out, 'utf8')).verdict, 'CLEAN');
});

test('probe --out / --save-golden naming a directory fail before any request is sent', async () => {
  mkdirSync(join(dir, 'is-a-dir'), { recursive: true });
  for (const flag of ['--out', '--save-golden', '--html']) {
    const before = completions(corrupt);
    const r = await cli(['probe', '--target', corrupt.url, '--reference', reference.url, ...common, flag, join(dir, 'is-a-dir')]);
    assert.equal(r.code, 2, flag);
    assert.match(r.stderr, new RegExp(`error: ${flag}: .*is-a-dir is a directory, not a file`));
    assert.doesNotMatch(r.stderr, /internal error/);
    assert.equal(completions(corrupt), before, `${flag}: no request was sent`);
  }
});

test('a write that fails after the probe: the CORRUPT verdict is printed first and the exit status stays 1', async () => {
  const r = await cli(['probe', '--target', corrupt.url, '--reference', reference.url, ...common, '--out', '/dev/full']);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stdout, /faultline probe: CORRUPT/);
  assert.match(r.stderr, /error: could not write --out \/dev\/full: ENOSPC/);
  assert.match(r.stderr, /the verdict above stands \(exit 1\)/);
  assert.doesNotMatch(r.stderr, /internal error/);
});

test('--save-golden alone (recording) into a full disk is an error with what was recorded', async () => {
  const r = await cli(['probe', '--target', reference.url, ...common, '--requests', '3', '--save-golden', '/dev/full']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /recorded 3 exchanges .* but could not write \/dev\/full: ENOSPC/);
});

test('kernel vectors --out naming a file is a usage error, not an internal one', async () => {
  writeFileSync(join(dir, 'vectors-file'), 'x');
  const r = await cli(['kernel', 'vectors', '--out', join(dir, 'vectors-file')]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /error: --out: .*vectors-file is a file, not a directory/);
  assert.doesNotMatch(r.stderr, /internal error/);
});

test('matrix --out naming a file and --html naming a directory are refused before any launch', async () => {
  const plan = fileURLToPath(new URL('../../examples/seed-b200/matrix.yaml', import.meta.url));
  writeFileSync(join(dir, 'run-file'), 'x');
  const out = await cli(['matrix', plan, '--out', join(dir, 'run-file'), '--quiet']);
  assert.equal(out.code, 2);
  assert.match(out.stderr, /error: --out: .*run-file is a file, not a directory/);
  const html = await cli(['matrix', plan, '--out', join(dir, 'run-x'), '--html', join(dir, 'is-a-dir'), '--quiet']);
  assert.equal(html.code, 2);
  assert.match(html.stderr, /error: --html: .*is-a-dir is a directory/);
  assert.ok(!existsSync(join(dir, 'run-x', 'journal.jsonl')), 'no run started');
});
