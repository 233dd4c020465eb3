/**
 * The standalone executable (`npm run build:standalone`), built once for this file into a temporary
 * directory (about 15 s on a quiet 2-core machine, 20–30 s loaded) and run with a PATH of only a temporary
 * directory that has no `node`: stand-in `nvidia-smi` and `vllm` (sh scripts), and a link to the
 * real Python, which reads stand-in vLLM / FlashInfer dist-info records through importlib.metadata
 * as it would in the vLLM image. HOME is a temporary directory, so the embedded data is unpacked into
 * HOME/.cache/faultline as on a fresh machine.
 *
 * It runs lint, guard (the container recipe's ENTRYPOINT and the Kubernetes example's command + args),
 * engine serve + probe + report, and kernel vectors + run-engine + verify.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { buildStandalone, standaloneSupported } from '../../scripts/standalone/build.js';
import { repoRoot } from '../helpers/cli.js';
import { stageEntrypoint } from '../helpers/dockerfile-rules.js';

const supported = standaloneSupported();
const work = mkdtempSync(join(tmpdir(), 'faultline-standalone-'));
const bin = join(work, 'bin');
const home = join(work, 'home');
let exe = '';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], o: { cwd?: string; env?: Record<string, string> } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    // nothing from the test's own environment: no NODE_OPTIONS, no PATH with node on it
    const child = spawn(exe, args, { cwd: o.cwd ?? work, env: { PATH: bin, HOME: home, ...o.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function script(name: string, body: string): void {
  writeFileSync(join(bin, name), body);
  chmodSync(join(bin, name), 0o755);
}

/** The real Python's own executable (not a pyenv shim, which needs pyenv on PATH). */
function realPython(): string {
  const r = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' });
  assert.equal(r.status, 0, `this test needs python3 (for importlib.metadata, as in the vLLM image): ${r.stderr}`);
  return realpathSync(r.stdout.trim());
}

/** Installed-package records as pip leaves them in site-packages: all importlib.metadata reads. */
function distInfo(site: string, name: string, version: string): void {
  const dir = join(site, `${name.replace(/-/g, '_')}-${version}.dist-info`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'METADATA'), `Metadata-Version: 2.1\nName: ${name}\nVersion: ${version}\n`);
}

const site = join(work, 'site-packages');
const B200 = { FAKE_GPU: 'NVIDIA B200, 10.0', PYTHONPATH: site };

describe('the standalone executable', { skip: supported.ok ? false : supported.why, timeout: 600_000 }, () => {
  before(async () => {
    mkdirSync(bin);
    mkdirSync(home);
    const built = await buildStandalone({ repoRoot, outDir: join(work, 'out') });
    exe = built.executable;
    console.log(`# built ${exe}: ${(built.bytes / 2 ** 20).toFixed(1)} MiB, ${built.assets} embedded files, in ${built.seconds.toFixed(1)} s`);
    script('nvidia-smi', '#!/bin/sh\nprintf "%s\\n" "$FAKE_GPU"\n');
    // the launched server: records its argv and whether a node is reachable from inside the container
    script(
      'vllm',
      '#!/bin/sh\n{ printf "%s\\n" "$@"; if command -v node >/dev/null 2>&1; then echo "node: found"; else echo "node: absent"; fi; } > "$FAKE_VLLM_MARKER"\nexit "${FAKE_VLLM_EXIT:-0}"\n',
    );
    symlinkSync(realPython(), join(bin, 'python3'));
    distInfo(site, 'vllm', '0.23.1rc1.dev843+g04adc8843');
    distInfo(site, 'flashinfer-python', '0.6.14');
    // the model in the Hugging Face cache at its default place under HOME (as mounted in the pod)
    const repo = join(home, '.cache', 'huggingface', 'hub', 'models--nvidia--Gemma-4-31B-IT-NVFP4');
    mkdirSync(join(repo, 'snapshots', 'abc123'), { recursive: true });
    mkdirSync(join(repo, 'refs'));
    writeFileSync(join(repo, 'refs', 'main'), 'abc123');
    for (const f of ['config.json', 'hf_quant_config.json'])
      copyFileSync(join(repoRoot, 'examples/seed-b200', f), join(repo, 'snapshots', 'abc123', f));
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test('PATH has no node, and the executable says it is standalone', async () => {
    assert.deepEqual(readdirSync(bin).sort(), ['nvidia-smi', 'python3', 'vllm']);
    const r = await run(['--version']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^faultline \d+\.\d+\.\d+ \(standalone executable, Node v20\.\d+\.\d+\)\nhazard catalog \d+ \(\d+ hazards: FL\d{3}–FL\d{3}\)\n?$/);
    const unpacked = readdirSync(join(home, '.cache', 'faultline'));
    assert.equal(unpacked.length, 1, 'the data is unpacked once, under HOME/.cache/faultline');
    assert.match(unpacked[0], /^standalone-[0-9a-f]{16}$/);
  });

  test('lints examples/seed-b200/serve.sh (copied away from the checkout) to FL001', async () => {
    const dir = join(work, 'launch');
    mkdirSync(dir);
    for (const f of ['serve.sh', 'config.json']) copyFileSync(join(repoRoot, 'examples/seed-b200', f), join(dir, f));
    const r = await run(['lint', 'serve.sh', '--model-config', 'config.json', '--gpu', 'NVIDIA B200'], { cwd: dir });
    assert.equal(r.code, 1, r.stderr);
    // FL001 is reproduced (flashinfer#3864's controls, vllm#47847's attribution): an error
    assert.match(r.stdout, /^serve\.sh:\d+:\d+ {2}error {2}FL001 /m);
    const explain = await run(['lint', '--explain', 'FL001']);
    assert.match(explain.stdout, /^# FL001 `swa-specdec-bf16q-fp8kv-trtllm`/m, 'the hazard pages travel inside');
  });

  const dockerEntrypoint = (): string[] => stageEntrypoint(readFileSync(join(repoRoot, 'examples/container/Dockerfile'), 'utf8'), 'vllm') ?? [];

  test("the Dockerfile's ENTRYPOINT refuses the canonical launch on a B200: exit 3, FL001 shown, FL003 refuses, vLLM never started", async () => {
    const entrypoint = dockerEntrypoint();
    assert.deepEqual(entrypoint, ['faultline', 'guard', '--', 'vllm', 'serve']);
    const marker = join(work, 'marker-refused');
    const args = [
      'nvidia/Gemma-4-31B-IT-NVFP4',
      '--attention-backend', 'FLASHINFER',
      '--kv-cache-dtype', 'fp8_e4m3',
      '--attention-config', '{"disable_flashinfer_q_quantization": true}',
      '--speculative-config', '{"method": "mtp", "model": "google/gemma-4-31B-it-assistant", "num_speculative_tokens": 7}',
    ];
    const r = await run([...entrypoint.slice(1), ...args], { env: { ...B200, FAKE_VLLM_MARKER: marker } });
    assert.equal(r.code, 3, r.stderr);
    // FL001 (reproduced) and FL003 (confirmed: flashinfer 0.6.14 with MTP k = 7) both refuse
    assert.match(r.stderr, /error {2}FL001 /);
    assert.match(r.stderr, /error {2}FL003 /);
    assert.match(r.stderr, /refusing to start: FL001, FL003 /);
    assert.match(
      r.stderr,
      /facts: GPU NVIDIA B200 \(sm100\) from nvidia-smi \(1 GPU\); vllm 0\.23\.1rc1\.dev843\+g04adc8843; flashinfer 0\.6\.14; model config from Hugging Face cache, nvidia\/Gemma-4-31B-IT-NVFP4@abc123/,
    );
    assert.equal(existsSync(marker), false, 'the stand-in vllm must not have run');
  });

  test("the Kubernetes example's command + args start vLLM with its exact argv; its exit status comes back", async () => {
    const manifest = parseYaml(readFileSync(join(repoRoot, 'examples/container/k8s-deployment.yaml'), 'utf8')) as {
      spec: { template: { spec: { containers: { command: string[]; args: string[] }[] } } };
    };
    const { command, args } = manifest.spec.template.spec.containers[0];
    assert.deepEqual(command, dockerEntrypoint());
    const marker = join(work, 'marker-started');
    const r = await run([...command.slice(1), ...args], { env: { ...B200, FAKE_VLLM_MARKER: marker, FAKE_VLLM_EXIT: '7' } });
    assert.equal(r.code, 7, r.stderr);
    assert.doesNotMatch(r.stderr, /error {2}FL/);
    assert.deepEqual(readFileSync(marker, 'utf8').trim().split('\n'), ['serve', ...args, 'node: absent']);
  });

  test('engine serve, probe, report: the probe judges the binary’s own server CLEAN and the report is written', async () => {
    const server = spawn(exe, ['engine', 'serve', '--port', '0', '--max-model-len', '512'], { cwd: work, env: { PATH: bin, HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    server.stdout.on('data', (d) => (out += d));
    server.stderr.on('data', (d) => (err += d));
    const exited = new Promise((resolve) => server.on('close', resolve));
    try {
      const deadline = Date.now() + 60_000;
      while (!/listening on (http:\/\/\S+)/.test(out) && Date.now() < deadline && server.exitCode === null) await new Promise((r) => setTimeout(r, 100));
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      assert.ok(url, `engine serve did not come up: ${err}`);
      assert.match(err, /standalone-[0-9a-f]{16}\/models\/tiny-swa/, 'the default model is the embedded one');
      const probe = await run(['probe', '--target', url, '--reference', url, '--suite', 'short', '--window', '128', '--requests', '30', '--max-tokens', '4', '--format', 'json', '--out', 'probe.json']);
      assert.equal(probe.code, 0, probe.stderr);
      assert.equal((JSON.parse(probe.stdout) as { verdict: string }).verdict, 'CLEAN');
      const report = await run(['report', 'probe.json', '--html', 'report.html']);
      assert.equal(report.code, 0, report.stderr);
      assert.match(readFileSync(join(work, 'report.html'), 'utf8'), /Content-Security-Policy/);
    } finally {
      server.kill('SIGTERM');
      await exited;
    }
  });

  test('kernel vectors → run-engine with the fault model → verify localizes the mismatches (exit 1)', async () => {
    const vec = join(work, 'vectors');
    assert.equal((await run(['kernel', 'vectors', '--out', vec])).code, 0);
    assert.equal((await run(['kernel', 'run-engine', vec, '--fault-model', 'trtllm-gen-swa-specdec'])).code, 0);
    const verify = await run(['kernel', 'verify', vec, '--quiet']);
    assert.equal(verify.code, 1, verify.stderr);
    assert.match(verify.stdout, /[1-9]\d* of \d+ dump\(s\) have outputs outside tolerance/);
  });
});
