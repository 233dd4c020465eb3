import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gatherBinaryVersion, gatherGpu, gatherVersions, parseLlamaServerVersion, parseOllamaVersion } from './machine-facts.js';
import type { Probe, ProbeResult } from './run-probe.js';

/** A probe that answers from a table keyed by program name and records what was asked. */
function fakeProbe(answers: Record<string, ProbeResult>): Probe & { calls: string[][] } {
  const calls: string[][] = [];
  const probe = (async (file: string, args: string[]) => {
    calls.push([file, ...args]);
    return answers[file] ?? { ok: false, stdout: '', why: `${file} not found on PATH` };
  }) as unknown as Probe & { calls: string[][] };
  probe.calls = calls;
  return probe;
}

test('GPU from nvidia-smi csv,noheader; the exact query is asked', async () => {
  const probe = fakeProbe({ 'nvidia-smi': { ok: true, stdout: 'NVIDIA B200, 10.0\nNVIDIA B200, 10.0\n' } });
  const g = await gatherGpu(probe, {});
  assert.equal(g.value?.sm, 100);
  assert.equal(g.value?.name, 'NVIDIA B200');
  assert.match(g.how, /nvidia-smi \(2 GPUs\)/);
  assert.deepEqual(probe.calls[0], ['nvidia-smi', '--query-gpu=name,compute_cap', '--format=csv,noheader']);
});

test('no nvidia-smi, garbage output, or mixed architectures leave the GPU unknown, with the reason', async () => {
  assert.match((await gatherGpu(fakeProbe({}), {})).how, /GPU unknown: nvidia-smi not found on PATH/);
  const mixed = fakeProbe({
    'nvidia-smi': { ok: true, stdout: 'NVIDIA B200, 10.0\nNVIDIA H100 80GB HBM3, 9.0\n' },
  });
  const m = await gatherGpu(mixed, {});
  assert.equal(m.value, undefined);
  assert.match(m.how, /different architectures/);
  const empty = await gatherGpu(fakeProbe({ 'nvidia-smi': { ok: true, stdout: '' } }), {});
  assert.equal(empty.value, undefined);
});

test('versions from the first Python that answers; missing packages are unknown, not guessed', async () => {
  const probe = fakeProbe({
    python: { ok: true, stdout: 'vllm=0.23.0\nflashinfer-python=\nflashinfer=0.6.12\n' },
  });
  const v = await gatherVersions(probe, {}, ['python3', 'python']);
  assert.equal(v.vllm.value, '0.23.0');
  assert.equal(v.flashinfer.value, '0.6.12');
  assert.equal(v.vllm.how, 'python importlib.metadata');
  assert.deepEqual(
    probe.calls.map((c) => c[0]),
    ['python3', 'python'],
  );
  assert.equal(probe.calls[0][1], '-c');
  const none = await gatherVersions(
    fakeProbe({ python3: { ok: true, stdout: 'vllm=\nflashinfer-python=\nflashinfer=\n' } }),
    {},
    ['python3'],
  );
  assert.equal(none.vllm.value, undefined);
  assert.match(none.vllm.how, /not installed for python3/);
  const noPython = await gatherVersions(fakeProbe({}), {}, ['python3']);
  assert.match(noPython.flashinfer.how, /no Python answered \(python3 not found on PATH\)/);
});

test('llama-server --version and ollama --version are read; what names no version is unknown', async () => {
  assert.equal(parseLlamaServerVersion('version: 6123 (abc1234)\nbuilt with cc for x86_64-linux-gnu\n'), 'b6123');
  assert.equal(parseLlamaServerVersion('load_backend: loaded CUDA backend\nversion: 7012 (0a1b2c3)\n'), 'b7012');
  assert.equal(parseLlamaServerVersion('version: 0 (unknown)'), undefined);
  assert.equal(parseLlamaServerVersion('llama-server custom'), undefined);
  assert.equal(parseOllamaVersion('ollama version is 0.12.3\n'), '0.12.3');
  assert.equal(parseOllamaVersion('Warning: could not connect to a running Ollama instance\nWarning: client version is 0.11.10\n'), '0.11.10');
  assert.equal(parseOllamaVersion('ollama version is 0.0.0'), undefined);
  // llama-server prints on stderr; a non-zero exit after printing still counts
  const v = await gatherBinaryVersion(fakeProbe({ 'llama-server': { ok: false, stdout: '', stderr: 'version: 6123 (abc1234)\n', why: 'llama-server failed (exit 1)' } }), {}, 'llama.cpp', 'llama-server');
  assert.equal(v.value, 'b6123');
  const none = await gatherBinaryVersion(fakeProbe({}), {}, 'ollama', 'ollama');
  assert.match(none.how, /Ollama version unknown: ollama not found on PATH/);
});
