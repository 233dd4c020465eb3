/**
 * Bad input to `engine serve --runtime llama.cpp` and `engine export-gguf`: each is a UserError
 * (exit 2, "error: …" and a hint), never a stack trace or an internal error. Two cases spawn the real
 * CLI; the others run the same main() in-process (a spawn costs a Node start-up each).
 */
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import { memoryIO } from '../../src/cli/io.js';
import { loadModel } from '../../src/engine/load-model.js';
import { str, u32 } from '../../src/gguf/format.js';
import { exportGemma3 } from '../../src/gguf/gemma3-export.js';
import { serializeGguf } from '../../src/gguf/writer.js';
import { repoRoot, runCli, type CliResult } from '../helpers/cli.js';

let dir: string;
let gguf: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'faultline-llama-errors-'));
  gguf = join(dir, 'tiny.gguf');
  const e = exportGemma3(loadModel(join(repoRoot, 'models/tiny-swa')), 'tiny', 'q8_0');
  writeFileSync(gguf, serializeGguf(e.metadata, e.tensors));
});

/** main() in-process, as the CLI runs it. */
async function inProcess(argv: string[]): Promise<CliResult> {
  const io = memoryIO({ cwd: repoRoot });
  const code = await main(argv, io);
  return { code, signal: null, stdout: io.stdout(), stderr: io.stderr() };
}
after(() => rmSync(dir, { recursive: true, force: true }));

function assertUserError(r: CliResult, message: RegExp, hint: RegExp): void {
  assert.equal(r.code, 2, `exit ${r.code}\n${r.stderr}`);
  assert.match(r.stderr, message);
  assert.match(r.stderr, /hint: /);
  assert.match(r.stderr, hint);
  assert.doesNotMatch(r.stderr, /internal error|\n\s+at /, r.stderr);
  assert.doesNotMatch(r.stdout, /listening on/);
}

const serveArgv = (flags: string[]) => ['engine', 'serve', '--runtime', 'llama.cpp', '--port', '0', ...flags];
const spawned = (...flags: string[]) => runCli(serveArgv(flags));
const serve = (...flags: string[]) => inProcess(serveArgv(flags));

test('a file that is not a GGUF (the real CLI)', async () => {
  const notGguf = join(dir, 'model.gguf');
  writeFileSync(notGguf, 'this is not a model\n');
  assertUserError(
    await spawned('--model', notGguf),
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

test('a draft model with another vocabulary (the real CLI)', async () => {
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
    await spawned('--model', gguf, '--model-draft', other),
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
    await inProcess(['engine', 'serve', '--runtime', 'vllm']),
    /--runtime vllm is not a runtime/,
    /llama\.cpp/,
  );
});

test('export-gguf: a bad weight type, and no --out', async () => {
  assertUserError(
    await inProcess(['engine', 'export-gguf', '--out', join(dir, 'x.gguf'), '--type', 'q4_0']),
    /--type q4_0 is not a weight type/,
    /f32, bf16, q8_0/,
  );
  assertUserError(await inProcess(['engine', 'export-gguf']), /needs --out/, /export-gguf --out/);
});
