/**
 * `faultline guard -- python3 -m sglang.launch_server …` with stand-in `nvidia-smi` and `python3`:
 * guard reads the installed SGLang version from the container's Python (importlib.metadata), the
 * GPU and the model config, applies SGLang's own choices with those facts (no --attention-backend on
 * a B200 → trtllm_mha) and refuses the FP8-KV launch (FL208) with exit 3, never starting it; the
 * same launch with a BF16 KV cache is started unchanged.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { runCli } from '../helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'faultline-guard-sglang-'));
const bin = join(work, 'bin');
mkdirSync(bin);
const script = (name: string, body: string) => {
  writeFileSync(join(bin, name), body);
  chmodSync(join(bin, name), 0o755);
};
script('nvidia-smi', '#!/bin/sh\nprintf "%s\\n" "NVIDIA B200, 10.0"\n');
// `python3 -c …` answers the version query; `python3 -m sglang.launch_server …` records that it started.
script(
  'python3',
  '#!/bin/sh\nif [ "$1" = "-c" ]; then echo "vllm="; echo "sglang=0.5.6.post2"; echo "flashinfer-python=0.6.14"; echo "flashinfer="; exit 0; fi\necho "$@" > "$FAKE_MARKER"\n',
);

const hfHome = join(work, 'hf');
const snap = join(hfHome, 'hub', 'models--meta-llama--Llama-3.1-70B-Instruct-FP8', 'snapshots', 'abc123');
mkdirSync(snap, { recursive: true });
mkdirSync(join(hfHome, 'hub', 'models--meta-llama--Llama-3.1-70B-Instruct-FP8', 'refs'));
writeFileSync(
  join(hfHome, 'hub', 'models--meta-llama--Llama-3.1-70B-Instruct-FP8', 'refs', 'main'),
  'abc123',
  { flag: 'w' },
);
writeFileSync(
  join(snap, 'config.json'),
  JSON.stringify({
    architectures: ['LlamaForCausalLM'],
    model_type: 'llama',
    num_hidden_layers: 80,
    num_attention_heads: 64,
    hidden_size: 8192,
  }),
);

const launch = [
  'python3',
  '-m',
  'sglang.launch_server',
  '--model-path',
  'meta-llama/Llama-3.1-70B-Instruct-FP8',
  '--tp',
  '4',
];

function env(marker: string) {
  return {
    PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`,
    HF_HOME: hfHome,
    HF_HUB_CACHE: '',
    FAKE_MARKER: marker,
  };
}

test('guard refuses an SGLang FP8-KV launch on a B200 (SGLang picks trtllm_mha itself): exit 3, never started', async () => {
  const marker = join(work, 'marker-fp8');
  const r = await runCli(['guard', '--', ...launch, '--kv-cache-dtype', 'fp8_e4m3'], { env: env(marker) });
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /refusing to start: FL208 /);
  assert.match(
    r.stderr,
    /facts: GPU NVIDIA B200 \(sm100\) from nvidia-smi \(1 GPU\); sglang 0\.5\.6\.post2;.*model config from Hugging Face cache/,
  );
  assert.equal(existsSync(marker), false, 'the server was not started');
});

test('the same SGLang launch with a BF16 KV cache is started unchanged', async () => {
  const marker = join(work, 'marker-bf16');
  const r = await runCli(['guard', '--', ...launch], { env: env(marker) });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(readFileSync(marker, 'utf8').trim(), launch.slice(1).join(' '));
});
