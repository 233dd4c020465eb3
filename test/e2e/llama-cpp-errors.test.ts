/**
 * Bad input to `engine serve --runtime llama.cpp` and `engine export-gguf`, through the real CLI:
 * each is a UserError (exit 2, "error: …" and a hint), never a stack trace or an internal error.
 */
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { str, u32 } from '../../src/gguf/format.js';
import { serializeGguf } from '../../src/gguf/writer.js';
import { runCli, type CliResult } from '../helpers/cli.js';

let dir: string;
let gguf: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'faultline-llama-errors-'));
  gguf = join(dir, 'tiny.gguf');
  const r = await runCli(['engine', 'export-gguf', '--out', gguf, '--type', 'q8_0']);
  assert.equal(r.code, 0, r.stderr);
});
after(() => rmSync(dir, { recursive: true, force: true }));

function assertUserError(r: CliResult, message: RegExp, hint: RegExp): void {
  assert.equal(r.code, 2, `exit ${r.code}\n${r.stderr}`);
  assert.match(r.stderr, message);
  assert.match(r.stderr, /hint: /);
  assert.match(r.stderr, hint);
  assert.doesNotMatch(r.stderr, /internal error|\n\s+at /, r.stderr);
  assert.doesNotMatch(r.stdout, /listening on/);
}

const serve = (...flags: string[]) =>
  runCli(['engine', 'serve', '--runtime', 'llama.cpp', '--port', '0', ...flags]);

test('a file that is not a GGUF', async () => {
  const notGguf = join(dir, 'model.gguf');
  writeFileSync(notGguf, 'this is not a model\n');
  assertUserError(
    await serve('--model', notGguf),
    /not a GGUF file llama\.cpp can read: it does not start with the magic "GGUF"/,
    /export-gguf/,
  );
});

test('a model directory passed to the llama.cpp runtime', async () => {
  assertUserError(await serve('--model', 'models/tiny-swa'), /not a file/, /export-gguf/);
});

test('an unknown cache type', async () => {
  assertUserError(
    await serve('--model', gguf, '--cache-type-k', 'q3_k'),
    /--cache-type-k q3_k is not one of f32, f16, bf16, q8_0/,
    /use one of/,
  );
});

test('a quantized V cache without flash attention', async () => {
  assertUserError(
    await serve('--model', gguf, '-ctv', 'q8_0', '-fa', 'off'),
    /quantized V cache.*needs flash attention/,
    /--flash-attn on/,
  );
});

test('a draft model with another vocabulary', async () => {
  const other = join(dir, 'other-vocab.gguf');
  const tokens = Array.from({ length: 300 }, (_, i) => `t${i}`);
  const meta = new Map([
    ['general.architecture', str('gemma3')],
    ['tokenizer.ggml.model', str('gpt2')],
    ['tokenizer.ggml.tokens', { type: 'string[]' as const, value: tokens }],
    ['tokenizer.ggml.bos_token_id', u32(1)],
    ['tokenizer.ggml.eos_token_id', u32(2)],
  ]);
  writeFileSync(other, serializeGguf(meta, []));
  assertUserError(
    await serve('--model', gguf, '--model-draft', other),
    /--model-draft .* has another vocabulary than the target \(300 tokens against 258/,
    /same vocabulary/,
  );
});

test('an unknown option, and a bad runtime name', async () => {
  assertUserError(
    await serve('--model', gguf, '--kv-cache-dtype', 'fp8'),
    /--kv-cache-dtype is not an option of the llama\.cpp runtime/,
    /--runtime llama\.cpp --help/,
  );
  assertUserError(
    await runCli(['engine', 'serve', '--runtime', 'vllm']),
    /--runtime vllm is not a runtime/,
    /llama\.cpp/,
  );
});

test('export-gguf: a bad weight type, and no --out', async () => {
  assertUserError(
    await runCli(['engine', 'export-gguf', '--out', join(dir, 'x.gguf'), '--type', 'q4_0']),
    /--type q4_0 is not a weight type/,
    /f32, bf16, q8_0/,
  );
  assertUserError(await runCli(['engine', 'export-gguf']), /needs --out/, /export-gguf --out/);
});
