/**
 * Acceptance for `faultline guard` (issue #2): stand-in `nvidia-smi`, `python3`/`python` and `vllm`
 * executables in a temp dir put first on PATH, the model's config in a Hugging Face cache layout.
 * The stand-in vllm records its argv in a marker file, echoes one stdin line, and exits 42 on SIGTERM.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { cliCommand, repoRoot, runCli } from '../helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'faultline-guard-e2e-'));
const bin = join(work, 'bin');
mkdirSync(bin);
const script = (name: string, body: string) => {
  writeFileSync(join(bin, name), body);
  chmodSync(join(bin, name), 0o755);
};
script('nvidia-smi', '#!/bin/sh\nprintf "%s\\n" "$FAKE_GPU"\n');
for (const py of ['python3', 'python'])
  script(
    py,
    '#!/bin/sh\necho "vllm=${FAKE_VLLM_VERSION:-0.23.1rc1.dev843+g04adc8843}"\necho "flashinfer-python=${FAKE_FLASHINFER:-0.6.14}"\necho "flashinfer="\n',
  );
script(
  'vllm',
  `#!${process.execPath}
const fs = require('node:fs');
const marker = process.env.FAKE_VLLM_MARKER;
fs.writeFileSync(marker, JSON.stringify(process.argv.slice(2)) + '\\n');
if (process.env.FAKE_VLLM_EXIT) process.exit(Number(process.env.FAKE_VLLM_EXIT));
process.on('SIGTERM', () => { fs.appendFileSync(marker, 'SIGTERM\\n'); process.exit(42); });
process.stdin.setEncoding('utf8');
process.stdin.once('data', (d) => { process.stdout.write('pong:' + d.trim() + '\\n'); fs.appendFileSync(marker, 'stdin:' + d.trim() + '\\n'); });
setInterval(() => {}, 1000);
`,
);

// nvidia/Gemma-4-31B-IT-NVFP4 in the Hugging Face cache layout, refs/main → snapshot abc123.
const hfHome = join(work, 'hf');
const repo = join(hfHome, 'hub', 'models--nvidia--Gemma-4-31B-IT-NVFP4');
mkdirSync(join(repo, 'snapshots', 'abc123'), { recursive: true });
mkdirSync(join(repo, 'refs'));
writeFileSync(join(repo, 'refs', 'main'), 'abc123');
for (const f of ['config.json', 'hf_quant_config.json'])
  copyFileSync(join(repoRoot, 'examples/seed-b200', f), join(repo, 'snapshots', 'abc123', f));

const launch = [
  'vllm',
  'serve',
  'nvidia/Gemma-4-31B-IT-NVFP4',
  '--attention-backend',
  'FLASHINFER',
  '--kv-cache-dtype',
  'fp8_e4m3',
  '--attention-config',
  '{"disable_flashinfer_q_quantization": true}',
  '--speculative-config',
  '{"method": "mtp", "model": "google/gemma-4-31B-it-assistant", "num_speculative_tokens": 7}',
];

let k = 0;
function env(gpu: string, extra: Record<string, string> = {}) {
  const marker = join(work, `marker-${k++}`);
  return {
    marker,
    env: {
      PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`,
      HF_HOME: hfHome,
      HF_HUB_CACHE: '',
      FAKE_GPU: gpu,
      FAKE_VLLM_MARKER: marker,
      ...extra,
    },
  };
}

test('on a B200 the canonical launch is refused: exit 3, FL001 on stderr, vllm never started', async () => {
  const e = env('NVIDIA B200, 10.0', { FAKE_VLLM_EXIT: '0' });
  const r = await runCli(['guard', '--', ...launch], { env: e.env });
  assert.equal(r.code, 3, r.stderr);
  // FL001 is reproduced (flashinfer#3864's controls, vllm#47847's attribution): an error that refuses
  // by default. flashinfer 0.6.14 + MTP k=7 + batching is also FL003 (confirmed, fixed in 0.6.18rc2).
  assert.match(r.stderr, /error {2}FL001 /);
  assert.match(r.stderr, /refusing to start: FL001, FL003 .*\(--refuse-on reproduced\)/);
  assert.match(
    r.stderr,
    /facts: GPU NVIDIA B200 \(sm100\) from nvidia-smi.*vllm 0\.23\.1rc1\.dev843.*flashinfer 0\.6\.14.*model config from Hugging Face cache, nvidia\/Gemma-4-31B-IT-NVFP4@abc123/,
  );
  assert.equal(existsSync(e.marker), false, 'the stand-in vllm must not have started');
});

// With FlashInfer 0.6.18 FL003 is fixed, so FL001 alone decides (flashinfer#3864 has no fixed release).
const fixedFl003 = { FAKE_FLASHINFER: '0.6.18' };

test('FL001 alone refuses the seed launch on a B200 with the sliding-window config (default --refuse-on reproduced)', async () => {
  const e = env('NVIDIA B200, 10.0', { ...fixedFl003, FAKE_VLLM_EXIT: '0' });
  const r = await runCli(['guard', '--', ...launch], { env: e.env });
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /refusing to start: FL001 applies/);
  assert.match(r.stderr, /sliding-window-layers: /);
  assert.equal(existsSync(e.marker), false, 'the stand-in vllm must not have started');
});

test('--refuse-on confirmed starts the seed launch (FL001 is reproduced, not confirmed), still reporting it', async () => {
  const e = env('NVIDIA B200, 10.0', { ...fixedFl003, FAKE_VLLM_EXIT: '0' });
  const r = await runCli(['guard', '--refuse-on', 'confirmed', '--', ...launch], { env: e.env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /error {2}FL001 /);
  assert.doesNotMatch(r.stderr, /refusing/);
  assert.ok(existsSync(e.marker));
});

test('--refuse-on reported refuses on a reported warning that --refuse-on reproduced lets through', async () => {
  // LMCache's in-process connector on vLLM 0.26.0 is FL030 for certain: reported, so a warning.
  const lmcache = [
    'vllm',
    'serve',
    'meta-llama/Llama-3.1-8B-Instruct',
    '--kv-transfer-config',
    '{"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"}',
  ];
  const facts = { ...fixedFl003, FAKE_VLLM_VERSION: '0.26.0', FAKE_VLLM_EXIT: '0' };
  const lenient = env('NVIDIA B200, 10.0', facts);
  const started = await runCli(['guard', '--', ...lmcache], { env: lenient.env });
  assert.equal(started.code, 0, started.stderr);
  assert.match(started.stderr, /warning {2}FL030 \[reported, not confirmed\]/);
  assert.ok(existsSync(lenient.marker));
  const strict = env('NVIDIA B200, 10.0', facts);
  const r = await runCli(['guard', '--refuse-on', 'reported', '--', ...lmcache], { env: strict.env });
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /refusing to start: FL030 applies.*\(--refuse-on reported\)/);
  assert.equal(existsSync(strict.marker), false);
});

test('--refuse-on with a level that does not exist is a usage error naming the levels', async () => {
  const e = env('NVIDIA B200, 10.0', { FAKE_VLLM_EXIT: '0' });
  const r = await runCli(['guard', '--refuse-on', 'errors', '--', ...launch], { env: e.env });
  assert.equal(r.code, 2);
  assert.match(
    r.stderr,
    /--refuse-on errors: not a confidence level[\s\S]*hint: use one of: confirmed, reproduced, reported/,
  );
  assert.equal(existsSync(e.marker), false);
});

test('--allow for each blocking hazard (id or alias) starts it anyway, and the exit code comes back', async () => {
  const e = env('NVIDIA B200, 10.0', { FAKE_VLLM_EXIT: '7' });
  const r = await runCli(
    ['guard', '--allow', 'FL001', '--allow', 'trtllm-gen-multitoken-reduction-index', '--', ...launch],
    {
      env: e.env,
    },
  );
  assert.match(r.stderr, /error {2}FL001 /, 'findings are still reported');
  assert.equal(r.code, 7, r.stderr);
  assert.deepEqual(JSON.parse(readFileSync(e.marker, 'utf8').split('\n')[0]), launch.slice(1));
});

test('--warn-only reports the findings and starts the command', async () => {
  const e = env('NVIDIA B200, 10.0', { FAKE_VLLM_EXIT: '0' });
  const r = await runCli(['guard', '--warn-only', '--', ...launch], { env: e.env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /--warn-only: starting despite FL001, FL003/);
  assert.ok(existsSync(e.marker));
});

test('on an H100 the stand-in starts with the exact argv, gets stdin, receives the forwarded SIGTERM, and its exit code comes back', async () => {
  const e = env('NVIDIA H100 80GB HBM3, 9.0');
  const [program, ...pre] = cliCommand();
  const child = spawn(program, [...pre, 'guard', '--', ...launch], {
    cwd: repoRoot,
    env: { ...process.env, ...e.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  const deadline = Date.now() + 60_000;
  while (!existsSync(e.marker)) {
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      assert.fail(`stand-in never started; stderr: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.deepEqual(JSON.parse(readFileSync(e.marker, 'utf8').split('\n')[0]), launch.slice(1));
  child.stdin.write('ping\n');
  while (!stdout.includes('pong:ping') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  child.kill('SIGTERM'); // to guard, which must forward it
  const { code } = await exited;
  assert.equal(code, 42, stderr);
  assert.match(stdout, /pong:ping/);
  const lines = readFileSync(e.marker, 'utf8').trim().split('\n');
  assert.deepEqual(lines.slice(1), ['stdin:ping', 'SIGTERM']);
  assert.doesNotMatch(stderr, /refusing/);
});

test('usage: no command, an unknown --allow id', async () => {
  const e = env('NVIDIA B200, 10.0');
  const r = await runCli(['guard', '--allow', 'FL999', '--', 'vllm', 'serve', 'm'], { env: e.env });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--allow FL999: no such hazard[\s\S]*hint:/);
  assert.equal(existsSync(e.marker), false);
});

test('a flag newer than faultline: a possible FL000 warning, the rest checked, and it starts; --allow-unknown-flags makes it a note', async () => {
  const newer = ['vllm', 'serve', 'm', '--kv-cache-dtype', 'fp8', '--a-flag-from-next-year', '3'];
  const warned = env('NVIDIA H100 80GB HBM3, 9.0', { FAKE_VLLM_EXIT: '0' });
  const r = await runCli(['guard', '--', ...newer], { env: warned.env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stderr,
    /warning +FL000 possibly affected[\s\S]*--a-flag-from-next-year: unknown to faultline's flag table/,
  );
  assert.deepEqual(JSON.parse(readFileSync(warned.marker, 'utf8').split('\n')[0]), newer.slice(1));
  const allowed = env('NVIDIA H100 80GB HBM3, 9.0', { FAKE_VLLM_EXIT: '0' });
  const ok = await runCli(['guard', '--allow-unknown-flags', '--', ...newer], { env: allowed.env });
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stderr, /note:? +unknown vLLM flag --a-flag-from-next-year/);
  assert.doesNotMatch(ok.stderr, /FL000/);
  assert.deepEqual(JSON.parse(readFileSync(allowed.marker, 'utf8').split('\n')[0]), newer.slice(1));
});

test('--warn-only never refuses: a launch faultline cannot parse, and an unknown --allow id, still start', async () => {
  const e = env('NVIDIA B200, 10.0', { FAKE_VLLM_EXIT: '5' });
  const bad = ['vllm', 'serve', 'm', '--max-model-len', 'banana'];
  const r = await runCli(['guard', '--warn-only', '--allow', 'FL999', '--', ...bad], { env: e.env });
  assert.equal(r.code, 5, r.stderr);
  assert.match(r.stderr, /--warn-only: --allow FL999 names no hazard/);
  assert.match(
    r.stderr,
    /--warn-only: the launch could not be checked, so it starts unchecked:\nerror: .*--max-model-len/,
  );
  assert.deepEqual(JSON.parse(readFileSync(e.marker, 'utf8').split('\n')[0]), bad.slice(1));
});
