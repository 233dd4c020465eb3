/** A damaged golden file: where it breaks (file:line:col) and, for one cut off mid-write, what to do. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isUserError } from '../core/errors.js';
import { loadRecording } from './recording.js';

const dir = mkdtempSync(join(tmpdir(), 'faultline-golden-bad-'));
const whole = JSON.stringify({ format: 'faultline-golden', version: 1, server: 'http://x', suite: 'short', logprobs: 5, seed: 0, exchanges: [{ id: 'p0', promptTokens: [1, 2], maxTokens: 1 }] }, null, 1);

function errorFor(text: string) {
  const path = join(dir, `g${Math.random()}.json`);
  writeFileSync(path, text);
  try {
    loadRecording(path);
  } catch (e) {
    assert.ok(isUserError(e));
    return e;
  }
  assert.fail('accepted');
}

test('a golden cut off mid-write: located at its end, with a hint to record it again', () => {
  const cut = whole.slice(0, Math.floor(whole.length * 0.6));
  const e = errorFor(cut);
  assert.match(e.message, /golden file ends early, after \d+ bytes/);
  const lines = cut.trimEnd().split('\n');
  assert.deepEqual(e.at, { file: e.at!.file, line: lines.length, column: lines[lines.length - 1].length + 1 });
  assert.ok(e.at!.line > 1);
  assert.match(e.hint ?? '', /cut off .*record it again with --save-golden/);
});

test('a golden broken in the middle is invalid JSON, not said to be cut off', () => {
  const broken = whole.replace('"suite": "short"', '"suite": short');
  const e = errorFor(broken);
  assert.match(e.message, /not valid JSON/);
  assert.doesNotMatch(e.message, /ends early/);
  rmSync(dir, { recursive: true, force: true });
});
