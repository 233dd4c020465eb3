/**
 * `faultline plan` on a real llama-server launch, then `faultline matrix --dry-run` on what it wrote
 * (and on `--from`, the same plan without a file): the CLI as a user runs it, nothing launched.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runCli } from '../helpers/cli.js';

const fixture = 'test/fixtures/wild-llama-cpp/renfield--k8s_llama-server.yaml';

test('plan on a llama-server launch writes a plan that matrix --dry-run accepts; --from gives the same', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fl-plan-llama-'));
  const out = join(dir, 'plan.yaml');
  const plan = await runCli(['plan', fixture, '--out', out], { cwd: repoRoot });
  assert.equal(plan.code, 0, plan.stderr);
  assert.match(readFileSync(out, 'utf8'), /serve-tiny-swa\.mjs/);
  const dry = await runCli(['matrix', '--dry-run', out], { cwd: repoRoot });
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /5 factors/);
  assert.match(dry.stdout, /Reference launch: node .*serve-tiny-swa\.mjs .*--parallel 1/);
  const from = await runCli(['matrix', '--dry-run', '--from', fixture, '--target', 'llama.cpp'], {
    cwd: repoRoot,
  });
  assert.equal(from.code, 0, from.stderr);
  assert.match(
    from.stdout,
    /Reference launch: llama-server .*-m \/models\/qwen3\.6-35b-a3b-q4kxl\.gguf .*--host 127\.0\.0\.1 --port \{port\}/,
  );
});

test('plan on an Ollama launch is a usage error that says why and what to do', async () => {
  const r = await runCli(['plan', 'test/fixtures/wild-llama-cpp/renfield--k8s_ollama.yaml'], {
    cwd: repoRoot,
  });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /this one runs Ollama/);
  assert.match(r.stderr, /hint: .*llama-server launch/);
});
