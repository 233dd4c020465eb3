/**
 * `faultline probe` against llama.cpp: tiny-swa exported as a GGUF and served by
 * `engine serve --runtime llama.cpp` (its default launch: F16 KV cache, flash attention auto, 4
 * sequences batched together), judged against the faultline runtime in float32 as the reference.
 * A correct engine that nobody here wrote must read CLEAN: no corrupt request, no failed one.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProbeReport } from '../../src/probe/types.js';
import { runCli } from '../helpers/cli.js';
import { startServer, type ServerProcess } from '../e2e/server-harness.js';

let reference: ServerProcess;
let candidate: ServerProcess;
let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'faultline-llama-probe-'));
  const gguf = join(dir, 'tiny-swa.gguf');
  const exported = await runCli(['engine', 'export-gguf', '--out', gguf]);
  assert.equal(exported.code, 0, exported.stderr);
  [reference, candidate] = await Promise.all([
    startServer(
      ['--model', 'models/tiny-swa', '--dtype', 'float32', '--served-model-name', 'tiny-swa'],
      60_000,
    ),
    startServer(['--runtime', 'llama.cpp', '--model', gguf, '--alias', 'tiny-swa'], 60_000),
  ]);
});

after(async () => {
  await Promise.all([reference?.stop(), candidate?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

test('probe reads CLEAN on llama.cpp with the faultline runtime as reference', async (t) => {
  const out = join(dir, 'probe.json');
  const r = await runCli(
    [
      'probe',
      '--target',
      candidate.url,
      '--reference',
      reference.url,
      '--model-config',
      'models/tiny-swa',
      '--suite',
      'short',
      '--requests',
      '32',
      '--max-tokens',
      '48',
      '--concurrency',
      '4',
      '--seed',
      '1',
      '--format',
      'json',
      '--out',
      out,
    ],
    { timeoutMs: 240_000 },
  );
  const report = JSON.parse(readFileSync(out, 'utf8')) as ProbeReport;
  t.diagnostic(`verdict ${report.verdict}; counts ${JSON.stringify(report.counts)}`);
  assert.equal(r.code, 0, `${r.stdout.slice(0, 600)} ${r.stderr}`);
  assert.equal(report.verdict, 'CLEAN');
  assert.equal(report.counts.corrupt, 0);
  assert.equal(report.counts.failed, 0);
});
