/**
 * The llama-server and Ollama sources on small in-memory files: file kinds, systemd units and
 * drop-ins, Dockerfiles, Modelfiles, NixOS modules, llama-swap configs, app-template values,
 * images whose entrypoint is the server, and what is named as not a server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Deployment } from '../deployment.js';
import { assembleDeployment } from './assemble.js';
import { collectLaunches } from './collect.js';
import { detectFileKind } from './detect.js';
import { memoryFile } from './testing.js';

function load(path: string, text: string): Deployment[] {
  return collectLaunches([memoryFile(path, text)]).launches.map((l) => assembleDeployment(l, { cwd: '/work' }));
}

function one(path: string, text: string): Deployment {
  const ds = load(path, text);
  assert.equal(ds.length, 1, `${path}: ${ds.length} launches`);
  return ds[0];
}

const facts = (d: Deployment) => d.llamaCpp?.facts ?? d.ollama?.facts ?? {};
const env = (d: Deployment) => Object.fromEntries([...d.env].map(([k, v]) => [k, v.value]));

test('file kinds by name, then content', () => {
  assert.equal(detectFileKind('llama-server.service', ''), 'systemd');
  assert.equal(detectFileKind('ollama.service.d/override.conf', '[Service]\nEnvironment=A=1\n'), 'systemd');
  assert.equal(detectFileKind('nginx.conf', 'server { listen 80; }'), 'shell');
  assert.equal(detectFileKind('Dockerfile', ''), 'dockerfile');
  assert.equal(detectFileKind('Containerfile.cuda', ''), 'dockerfile');
  assert.equal(detectFileKind('x/server.Dockerfile', ''), 'dockerfile');
  assert.equal(detectFileKind('Modelfile', ''), 'modelfile');
  assert.equal(detectFileKind('qwen.Modelfile', ''), 'modelfile');
  assert.equal(detectFileKind('ollama.nix', ''), 'nix');
  assert.equal(detectFileKind('build', 'FROM ubuntu\nRUN true\nCMD ["x"]\n'), 'dockerfile');
  assert.equal(detectFileKind('gemma', 'FROM gemma3:4b\nPARAMETER num_ctx 8192\n'), 'modelfile');
});

test('systemd: ExecStart with continuations, Environment= wherever it is, EnvironmentFile= noted, LLAMA_ARG_* read', () => {
  const d = one(
    'llama.service',
    [
      '[Unit]',
      'Description=x',
      '[Service]',
      'ExecStart=-/opt/llama.cpp/build/bin/llama-server \\',
      '    -m /m/a.gguf \\',
      '    --ctx-size ${CTX} -np $NP',
      'Environment="LLAMA_ARG_FLASH_ATTN=on" CTX=8192',
      'EnvironmentFile=-/etc/default/llama',
      '',
    ].join('\n'),
  );
  assert.equal(d.engine, 'llama.cpp');
  assert.equal(d.source.kind, 'systemd');
  assert.equal(d.model?.value, '/m/a.gguf');
  assert.deepEqual(d.model?.at, { file: 'llama.service', line: 5, column: 5 });
  assert.equal(facts(d).ctxSize?.value, 8192);
  assert.equal(facts(d).parallel?.value, '$NP');
  assert.ok(facts(d).parallel?.runtime);
  assert.equal(facts(d).flashAttn?.value, 'on');
  assert.equal(facts(d).flashAttn?.option, 'LLAMA_ARG_FLASH_ATTN');
  assert.ok(d.notes.some((n) => /EnvironmentFile=\/etc\/default\/llama is not read/.test(n.value)));
});

test('systemd: an Ollama drop-in with no ExecStart is the packaged ollama.service it configures', () => {
  const d = one('override.conf', '[Service]\nEnvironment="OLLAMA_CONTEXT_LENGTH=16384"\nEnvironment="OLLAMA_FLASH_ATTENTION=0" "OLLAMA_KV_CACHE_TYPE=q8_0"\n');
  assert.equal(d.engine, 'ollama');
  assert.deepEqual(
    [facts(d).ctxSize?.value, facts(d).flashAttn?.value, facts(d).cacheTypeK?.value],
    [16384, 'off', 'q8_0'],
  );
  assert.ok(d.notes.some((n) => /quantizes the KV cache only with flash attention/.test(n.value)));
  assert.deepEqual(load('other.conf', '[Service]\nEnvironment=FOO=1\n'), []);
});

test('Dockerfile: the final stage inherits ENV and CMD from an earlier stage; ARG substitution; exec and shell forms', () => {
  const d = one(
    'Dockerfile',
    [
      'ARG BASE=ubuntu',
      'FROM ${BASE} AS base',
      'ARG CTX=4096',
      'ENV LLAMA_ARG_CTX_SIZE=${CTX} \\',
      '    # a comment inside a continuation',
      '    LLAMA_ARG_N_PARALLEL="2"',
      'CMD ["/app/llama-server", "-m", "/models/a.gguf"]',
      'FROM base',
      'ENV LLAMA_ARG_FLASH_ATTN on',
      '',
    ].join('\n'),
  );
  assert.equal(d.source.kind, 'dockerfile');
  assert.deepEqual(
    [d.model?.value, facts(d).ctxSize?.value, facts(d).parallel?.value, facts(d).flashAttn?.value],
    ['/models/a.gguf', 4096, 2, 'on'],
  );
  assert.deepEqual(d.model?.at, { file: 'Dockerfile', line: 7, column: 28 });
  const shell = one('Dockerfile', 'FROM x\nENTRYPOINT exec llama-server -hf org/repo -c 1024\nCMD ["ignored"]\n');
  assert.deepEqual([shell.model?.value, facts(shell).ctxSize?.value], ['org/repo', 1024]);
  // ENTRYPOINT drops the CMD of the base
  const ep = one('Dockerfile', 'FROM ghcr.io/ggml-org/llama.cpp:server-b6000\nENV LLAMA_ARG_MODEL=/m.gguf\n');
  assert.equal(ep.versions.llamaCpp?.value, 'b6000');
  assert.equal(ep.model?.value, '/m.gguf');
});

test('Modelfile: a model definition with FROM and PARAMETERs (case-insensitive, """ strings skipped)', () => {
  const d = one('Modelfile', 'from llama3.2:1b\nSYSTEM """\nPARAMETER num_ctx 1\n"""\nparameter num_ctx 16384\nPARAMETER stop "<|eot|>"\nPARAMETER stop "x"\n');
  assert.equal(d.engine, 'ollama');
  assert.equal(d.ollama?.definition, 'modelfile');
  assert.equal(d.model?.value, 'llama3.2:1b');
  assert.equal(facts(d).ctxSize?.value, 16384);
  assert.deepEqual(d.ollama?.parameters?.stop.map((s) => s.value), ['<|eot|>', 'x']);
  assert.ok(d.notes.some((n) => /a model definition, not a server launch/.test(n.value)));
});

test('NixOS: services.ollama with its environment, services.llama-cpp as its module runs it', () => {
  const d = one(
    'ollama.nix',
    `{ config, pkgs, ... }:
{
  services.ollama = {
    enable = true;
    environmentVariables = { OLLAMA_CONTEXT_LENGTH = "8192"; };
    loadModels = [ "qwen3:8b" ];
  };
  systemd.services.ollama.serviceConfig.Environment = [ "OLLAMA_FLASH_ATTENTION=1" ];
}`,
  );
  assert.deepEqual([facts(d).ctxSize?.value, facts(d).flashAttn?.value, d.model?.value], [8192, 'on', 'qwen3:8b']);
  const l = one('llama.nix', `{ services.llama-cpp = { enable = lib.mkDefault true; model = "/m/a.gguf"; port = 9000; extraFlags = [ "-c" "4096" "-fa" "on" ]; }; }`);
  assert.deepEqual([l.engine, l.model?.value, facts(l).ctxSize?.value, facts(l).flashAttn?.value], ['llama.cpp', '/m/a.gguf', 4096, 'on']);
  assert.deepEqual(load('off.nix', '{ services.ollama.enable = false; }'), []);
});

test('llama-swap: one launch per model, macros substituted, ${PORT} a run-time value, env entries', () => {
  const ds = load(
    'llama-swap.yaml',
    `macros:
  server: /app/llama-server --host 127.0.0.1
models:
  a:
    env: ["CUDA_VISIBLE_DEVICES=1"]
    cmd: |
      # a comment line
      \${server} --port \${PORT}
        -m /m/a.gguf -c 8192
  b:
    cmd: docker run --rm ghcr.io/ggml-org/llama.cpp:server-cuda-b6500 -m /m/b.gguf
`,
  );
  assert.deepEqual(
    ds.map((d) => [d.source.kind, d.source.object, d.model?.value]),
    [
      ['llama-swap', 'models.a', '/m/a.gguf'],
      ['llama-swap', 'models.b', '/m/b.gguf'],
    ],
  );
  assert.equal(facts(ds[0]).ctxSize?.value, 8192);
  assert.equal(env(ds[0]).CUDA_VISIBLE_DEVICES, '1');
  assert.deepEqual(ds[0].model?.at, { file: 'llama-swap.yaml', line: 9, column: 9 });
  assert.ok(ds[0].args.get('port')?.runtime);
  assert.equal(ds[1].versions.llamaCpp?.value, 'b6500');
});

test('images whose entrypoint is the server: llama.cpp server / full, ollama; and what is no server', () => {
  const server = one('run.sh', 'docker run -e LLAMA_ARG_CTX_SIZE=2048 ghcr.io/ggml-org/llama.cpp:server -m /m.gguf');
  assert.deepEqual([server.engine, server.model?.value, facts(server).ctxSize?.value], ['llama.cpp', '/m.gguf', 2048]);
  assert.equal(server.llamaCpp?.entry, 'server-image');
  const full = one('run.sh', 'docker run ghcr.io/ggml-org/llama.cpp:full-cuda-b5000 --server -m /m.gguf');
  assert.deepEqual([full.model?.value, full.versions.llamaCpp?.value, full.llamaCpp?.entry], ['/m.gguf', 'b5000', 'full-image']);
  assert.deepEqual(load('run.sh', 'docker run ghcr.io/ggml-org/llama.cpp:full-cuda --run -m /m.gguf'), []);
  const ollama = one('run.sh', 'docker run -d -e OLLAMA_NUM_PARALLEL=4 ollama/ollama:0.12.3');
  assert.deepEqual([ollama.engine, ollama.versions.ollama?.value, facts(ollama).parallel?.value], ['ollama', '0.12.3', 4]);
  const c = collectLaunches([memoryFile('chat.sh', 'llama-cli -m x.gguf\nollama pull qwen3\npython3 -m llama_cpp.server --model x.gguf\n')]);
  assert.deepEqual(c.launches, []);
  assert.deepEqual(
    c.notLaunches.map((n) => n.value),
    [
      '`llama-cli` (a llama.cpp program that is not a server; llama-server serves)',
      '`ollama pull` (an Ollama client command, not the server: `ollama serve` is)',
      "python -m llama_cpp.server (llama-cpp-python's server, whose flags are its own; not read)",
    ],
  );
});

test('Kubernetes: bjw-s app-template containers keyed by name with an env map; an ollama image with no command', () => {
  const d = one(
    'helmrelease.yaml',
    `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: ollama}
spec:
  values:
    controllers:
      main:
        containers:
          app:
            image: {repository: docker.io/ollama/ollama, tag: "0.12.3-rocm"}
            env:
              OLLAMA_NUM_PARALLEL: 2
              OLLAMA_FLASH_ATTENTION: {value: "true"}
`,
  );
  assert.deepEqual([d.engine, d.versions.ollama?.value, facts(d).parallel?.value, facts(d).flashAttn?.value], ['ollama', '0.12.3', 2, 'on']);
  assert.equal(d.platform?.value, 'rocm');
});

test('Ollama reads its variables as envconfig does: quotes trimmed, a bad number ignored, an odd boolean true', () => {
  const d = one('s.sh', `export OLLAMA_CONTEXT_LENGTH="'8192'" OLLAMA_NUM_PARALLEL=many OLLAMA_FLASH_ATTENTION=yes OLLAMA_NUM_CTX=1\nollama serve\n`);
  assert.equal(facts(d).ctxSize?.value, 8192);
  assert.equal(facts(d).parallel?.from, 'default');
  assert.equal(facts(d).flashAttn?.value, 'on');
  assert.ok(d.notes.some((n) => /OLLAMA_NUM_PARALLEL=many: not an unsigned number/.test(n.value)));
  assert.ok(d.notes.some((n) => /OLLAMA_NUM_CTX: not a variable Ollama/.test(n.value)));
});
