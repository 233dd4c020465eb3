/**
 * `probe --golden` and the other options: the ones a golden fixes are refused when they would
 * change something (never silently ignored); --page-size and --window override the golden's
 * values with a note; left out, the golden's own values are used.
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
const dir = mkdtempSync(join(tmpdir(), 'faultline-golden-opts-'));
const golden = join(dir, 'golden.json');
let server: FakeServer;

async function probe(args: string[]) {
  const io = memoryIO();
  const code = await main(['probe', '--target', server.url, ...args], io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

before(async () => {
  server = await startFakeServer({ lm: trainByteNgram(readFileSync(promptText, 'utf8'), 5) });
  const rec = await probe(['--save-golden', golden, '--window', '32', '--page-size', '8', '--seed', '3', '--prompt-text', promptText, '--max-tokens', '16', '--requests', '30']);
  assert.equal(rec.code, 0, rec.stderr);
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

test('options the golden fixes are refused, each with the golden\'s own value', async () => {
  const r = await probe(['--golden', golden, '--seed', '5', '--suite', 'short', '--max-tokens', '99', '--prompt-text', promptText]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--golden .*golden\.json fixes the prompts, so these options cannot take effect: --suite short \(the golden's suite is window-crossing\); --seed 5 \(the golden's seed is 3\); --max-tokens 99 \(each exchange keeps its recorded max_tokens: \d+(–\d+)?\); --prompt-text/);
  assert.match(r.stderr, /hint: drop them to replay the golden as recorded/);
  assert.equal(server.calls.get('/v1/completions') ?? 0, 30, 'nothing was sent');
});

test("the golden's own values are not a conflict; left out, its page size is used, not the default", async () => {
  const r = await probe(['--golden', golden, '--seed', '3', '--suite', 'window-crossing', '--format', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const json = JSON.parse(r.stdout);
  assert.equal(json.settings.pageSize, 8);
  assert.equal(json.settings.window, 32);
  assert.equal(json.settings.seed, 3);
  assert.doesNotMatch(r.stderr, /overrides/);
});

test('--page-size and --window override the golden with a note on stderr and in the report; --requests takes the first N', async () => {
  const r = await probe(['--golden', golden, '--page-size', '32', '--requests', '29', '--format', 'json']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /faultline probe: --golden: --page-size 32 overrides the golden's 8/);
  const json = JSON.parse(r.stdout);
  assert.equal(json.settings.pageSize, 32);
  assert.equal(json.counts.planned, 29);
  assert.ok(json.notes.some((n: string) => /--page-size 32 overrides the golden's 8/.test(n)), json.notes.join('\n'));
});
