/**
 * `faultline guard` around llama-server and `ollama serve` (issue 32, item 5): stand-in
 * `llama-server`, `ollama` and `nvidia-smi` executables first on PATH. Each stand-in answers
 * `--version` as the real one does (llama-server on stderr: "version: 6123 (abc1234)"; Ollama on
 * stdout: "ollama version is 0.12.3"), or as told by FAKE_VERSION_OUT / FAKE_VERSION_EXIT, and
 * otherwise records its argv and exits FAKE_EXIT. The CLI is spawned, as an entrypoint runs it;
 * the refusal itself is checked in process with a stand-in hazard (the catalog may hold no
 * llama.cpp or Ollama hazard yet), through guard() and the same fake binaries.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { guard } from '../../src/cli/commands/guard.js';
import { memoryIO } from '../../src/cli/io.js';
import type { Hazard } from '../../src/hazards/hazard.js';
import { runProbe } from '../../src/hazards/guard/run-probe.js';
import { runCli } from '../helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'faultline-guard-llama-'));
const bin = join(work, 'bin');
mkdirSync(bin);
const script = (dir: string, name: string, body: string) => {
  writeFileSync(join(dir, name), body);
  chmodSync(join(dir, name), 0o755);
};
script(bin, 'nvidia-smi', '#!/bin/sh\n[ -n "$FAKE_GPU" ] || exit 9\nprintf "%s\\n" "$FAKE_GPU"\n');
const stand = (versionStream: 'stdout' | 'stderr', version: string) => `#!${process.execPath}
const fs = require('node:fs');
const args = process.argv.slice(2);
if (args[0] === '--version' || args[0] === '-v') {
  const out = process.env.FAKE_VERSION_OUT ?? ${JSON.stringify(version)};
  process.${versionStream}.write(out);
  process.exit(Number(process.env.FAKE_VERSION_EXIT ?? 0));
}
fs.writeFileSync(process.env.FAKE_MARKER, JSON.stringify(args) + '\\n');
process.exit(Number(process.env.FAKE_EXIT ?? 0));
`;
script(
  bin,
  'llama-server',
  stand('stderr', 'version: 6123 (abc1234)\nbuilt with cc (GCC) 13.2.0 for x86_64-linux-gnu\n'),
);
script(bin, 'ollama', stand('stdout', 'ollama version is 0.12.3\n'));
// a directory with nvidia-smi and no llama-server: the version probe finds nothing to ask
const bare = join(work, 'bare');
mkdirSync(bare);

let k = 0;
function env(extra: Record<string, string> = {}, path = bin) {
  const marker = join(work, `marker-${k++}`);
  return {
    marker,
    env: {
      PATH: `${path}${delimiter}${process.env.PATH ?? ''}`,
      FAKE_MARKER: marker,
      FAKE_GPU: 'NVIDIA H100 80GB HBM3, 9.0',
      ...extra,
    },
  };
}

const launch = [
  'llama-server',
  '-m',
  '/models/q.gguf',
  '-c',
  '8192',
  '-np',
  '4',
  '-fa',
  'on',
  '-ctk',
  'q8_0',
  '-ctv',
  'q8_0',
  '--port',
  '8080',
];

test('llama-server: the version from its --version, the GPU from nvidia-smi, and the command runs unchanged with its exit code', async () => {
  const e = env({ FAKE_EXIT: '5' });
  const r = await runCli(['guard', '--', ...launch], { env: e.env });
  assert.equal(r.code, 5, r.stderr);
  assert.match(
    r.stderr,
    /facts: GPU NVIDIA H100 80GB HBM3 \(sm90\) from nvidia-smi \(1 GPU\); llama\.cpp b6123 from llama-server --version/,
  );
  assert.deepEqual(JSON.parse(readFileSync(e.marker, 'utf8')), launch.slice(1));
});

test('llama-server --version unreadable, failing, or no nvidia-smi: unknown facts with the reason, never a crash, and it starts', async () => {
  const garbage = env({ FAKE_VERSION_OUT: 'llama.cpp server (custom build)\n' });
  let r = await runCli(['guard', '--', ...launch], { env: garbage.env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stderr,
    /llama\.cpp version unknown: llama-server --version printed no version faultline reads \("llama\.cpp server \(custom build\)"\)/,
  );
  assert.ok(existsSync(garbage.marker));

  const failing = env({ FAKE_VERSION_OUT: '', FAKE_VERSION_EXIT: '1', FAKE_GPU: '' });
  r = await runCli(['guard', '--', ...launch], { env: failing.env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /GPU unknown: nvidia-smi failed \(exit 9\)/);
  assert.match(r.stderr, /llama\.cpp version unknown: llama-server failed \(exit 1\)/);

  const unbuilt = env({ FAKE_VERSION_OUT: 'version: 0 (unknown)\n' });
  r = await runCli(['guard', '--', ...launch], { env: unbuilt.env });
  assert.match(r.stderr, /llama\.cpp version unknown: .*"version: 0 \(unknown\)"/);
  assert.equal(r.code, 0, r.stderr);
});

test('llama-server absent from PATH: its version is unknown and the start fails as a missing command does (127)', async () => {
  const e = env({}, bare);
  const r = await runCli(['guard', '--', ...launch], { env: { ...e.env, PATH: bare } });
  assert.match(r.stderr, /llama\.cpp version unknown: llama-server not found on PATH/);
  assert.match(r.stderr, /cannot start llama-server: not found on PATH/);
  assert.equal(r.code, 127);
});

test('an option llama-server lacks is FL000, a warning that never refuses; --allow-unknown-flags makes it a note', async () => {
  const e = env();
  const odd = [...launch, '--cache-type-z', 'q4_0'];
  let r = await runCli(['guard', '--', ...odd], { env: e.env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /FL000/);
  assert.match(r.stderr, /--cache-type-z/);
  assert.ok(existsSync(e.marker));
  const quiet = env();
  r = await runCli(['guard', '--allow-unknown-flags', '--', ...odd], { env: quiet.env });
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /FL000/);
});

test('ollama serve: the version from ollama --version (also the "client version" form with no server up), OLLAMA_* from the environment', async () => {
  const e = env({ OLLAMA_KV_CACHE_TYPE: 'q8_0', OLLAMA_FLASH_ATTENTION: '1', FAKE_EXIT: '0' });
  let r = await runCli(['guard', '--', 'ollama', 'serve'], { env: e.env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /facts: GPU NVIDIA H100 .*; Ollama 0\.12\.3 from ollama --version/);
  assert.deepEqual(JSON.parse(readFileSync(e.marker, 'utf8')), ['serve']);
  const warned = env({
    FAKE_VERSION_OUT:
      'Warning: could not connect to a running Ollama instance\nWarning: client version is 0.11.10\n',
  });
  r = await runCli(['guard', '--', 'ollama', 'serve'], { env: warned.env });
  assert.match(r.stderr, /Ollama 0\.11\.10 from ollama --version/);
  assert.equal(r.code, 0, r.stderr);
});

/** A stand-in hazard of the kind the catalog is gaining: llama.cpp, a quantized K cache with several slots. */
function standIn(
  engine: 'llama.cpp' | 'ollama',
  confidence: Hazard['confidence'],
  severity: Hazard['severity'],
): Hazard {
  return {
    id: 'FL990',
    alias: 'stand-in-quantized-k-slots',
    engines: [engine],
    severity,
    summary: 'a stand-in hazard: quantized K cache with several slots',
    mechanism: 'none: a test hazard',
    affected: {},
    confidence,
    conditions: [
      {
        name: 'quantized-k',
        description: 'the K cache is quantized',
        check: (d) => {
          const v = (d.llamaCpp ?? d.ollama)?.facts.cacheTypeK?.value;
          return v && v !== 'f16'
            ? { status: 'met', detail: `K cache ${v}` }
            : { status: 'not-met', detail: 'K cache f16' };
        },
      },
      {
        name: 'known-build',
        role: 'fact',
        description: 'the llama.cpp build is known',
        check: (d) =>
          d.versions.llamaCpp || d.versions.ollama
            ? { status: 'met', detail: `version ${(d.versions.llamaCpp ?? d.versions.ollama)?.value}` }
            : { status: 'unknown', detail: 'no version' },
      },
    ],
    locateAt: 'quantized-k',
    remedies: [],
    nonRemedies: [],
    examples: { failing: [], clean: [] } as unknown as Hazard['examples'],
    references: [],
    docs: { problem: 'a test hazard' },
  };
}

async function guardInProcess(
  command: string[],
  hazard: Hazard,
  extra: {
    env?: Record<string, string>;
    warnOnly?: boolean;
    allowed?: string[];
    refuseOn?: Hazard['confidence'];
  } = {},
) {
  const e = env(extra.env);
  const io = memoryIO({ env: e.env });
  const code = await guard(command, {
    warnOnly: Boolean(extra.warnOnly),
    allowUnknownFlags: false,
    allowed: new Set(extra.allowed ?? []),
    ...(extra.refuseOn ? { refuseOn: extra.refuseOn } : {}),
    catalog: [hazard],
    io,
    probe: runProbe,
  });
  return { code, stderr: io.stderr(), started: existsSync(e.marker) };
}

test('a llama.cpp hazard that applies refuses (exit 3, never started); --allow, --warn-only and --refuse-on act as for vLLM', async () => {
  const h = standIn('llama.cpp', 'reproduced', 'error');
  let r = await guardInProcess(launch, h);
  assert.equal(r.code, 3, r.stderr);
  assert.equal(r.started, false);
  assert.match(r.stderr, /error {2}FL990 /);
  assert.match(r.stderr, /refusing to start: FL990 applies to this launch/);
  r = await guardInProcess(launch, h, { allowed: ['FL990'] });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.started);
  r = await guardInProcess(launch, h, { warnOnly: true });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /--warn-only: starting despite FL990/);
  r = await guardInProcess(launch, standIn('llama.cpp', 'reported', 'warning'));
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /warning {2}FL990/);
  r = await guardInProcess(launch, standIn('llama.cpp', 'reported', 'warning'), { refuseOn: 'reported' });
  assert.equal(r.code, 3, r.stderr);
  // not applying (f16 K): starts
  r = await guardInProcess(
    launch.filter((w, i) => !(w === '-ctk' || launch[i - 1] === '-ctk')),
    h,
  );
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.started);
});

test('a hazard that applies only if the unknown version is affected never refuses (possibly affected)', async () => {
  const r = await guardInProcess(launch, standIn('llama.cpp', 'reproduced', 'error'), {
    env: { FAKE_VERSION_OUT: 'nope' },
  });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.started);
  assert.doesNotMatch(r.stderr, /refusing/);
});

test('an Ollama hazard reads OLLAMA_* from the real environment and refuses', async () => {
  const r = await guardInProcess(['ollama', 'serve'], standIn('ollama', 'confirmed', 'error'), {
    env: { OLLAMA_KV_CACHE_TYPE: 'q4_0', OLLAMA_FLASH_ATTENTION: 'true' },
  });
  assert.equal(r.code, 3, r.stderr);
  assert.equal(r.started, false);
  assert.match(r.stderr, /FL990/);
});
