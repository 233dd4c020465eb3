/**
 * `lint` without --gpu / --model-config: a hazard is a finding when the launch turns on one of its
 * distinguishing features; hazards only facts not given could make apply are one summary line that
 * does not change the exit status, listed as findings with --possible.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { main } from '../../src/cli/main.js';
import { memoryIO } from '../../src/cli/io.js';
import { repoRoot } from '../helpers/cli.js';

async function lint(args: string[]) {
  const io = memoryIO({ cwd: repoRoot });
  const code = await main(['lint', ...args], io);
  return { code, out: io.stdout(), err: io.stderr() };
}

const plain = ['--', 'vllm', 'serve', 'meta-llama/Llama-3.1-8B-Instruct', '--max-model-len', '8192'];

test('an ordinary launch: no findings, exit 0, one line for the hazards facts would decide', async () => {
  const r = await lint(plain);
  assert.equal(r.code, 0, r.out + r.err);
  assert.match(r.out, /✓ no known hazard in 1 launch/);
  assert.match(
    r.out,
    /\d+ hazards? depends? on facts not given; --gpu, --model-config[^\n]* decide them \(--possible lists them: FL\d{3}/,
  );
  assert.doesNotMatch(r.out, /possibly affected/);
});

test('--possible lists them as findings, as before, and they count for the exit status', async () => {
  const r = await lint(['--possible', ...plain]);
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, /warning {2}FL\d{3} .*possibly affected/);
  assert.doesNotMatch(r.out, /depend on facts not given/);
});

test('JSON keeps them under dependOnFacts, not among the findings; SARIF gives them level none', async () => {
  const json = JSON.parse((await lint(['--format', 'json', ...plain])).out) as {
    findings: unknown[];
    dependOnFacts?: { summary: string; hazards: { hazardId: string; possibly: boolean }[] };
  };
  assert.equal(json.findings.length, 0);
  assert.ok(json.dependOnFacts && json.dependOnFacts.hazards.length > 0);
  assert.ok(json.dependOnFacts.hazards.every((h) => h.possibly));
  const sarif = JSON.parse((await lint(['--format', 'sarif', ...plain])).out) as {
    runs: { results: { level: string; kind?: string }[] }[];
  };
  const results = sarif.runs[0].results;
  assert.ok(results.length > 0);
  assert.ok(results.every((r) => r.level === 'none' && r.kind === 'open'));
});

test('the seed launch without --gpu still reports FL001 as possibly affected: its own flags turn on four of its conditions', async () => {
  const r = await lint(['examples/seed-b200/serve.sh', '--format', 'json']);
  assert.equal(r.code, 1, r.err);
  const out = JSON.parse(r.out) as {
    findings: { hazardId: string; possibly: boolean; conditions: { name: string; status: string }[] }[];
  };
  const f = out.findings.find((x) => x.hazardId === 'FL001');
  assert.ok(f, 'FL001 is a finding');
  assert.equal(f.possibly, true);
  const met = f.conditions.filter((c) => c.status === 'met').map((c) => c.name);
  for (const name of [
    'flashinfer-backend',
    'fp8-kv-cache',
    'speculative-decoding',
    'q-quantization-disabled',
  ])
    assert.ok(met.includes(name), `${name} is met by the launch's own flags (${met.join(', ')})`);
  assert.deepEqual(
    f.conditions.filter((c) => c.status === 'unknown').map((c) => c.name),
    ['sliding-window-layers', 'context-exceeds-window', 'gpu-sm100-family'],
  );
});
