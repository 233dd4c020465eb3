import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UserError } from '../../core/errors.js';
import { launchesFromShell, launchesFromShellFile } from './shell.js';
import { fileLocator } from './text-position.js';
import { envObject, fixture, texts, where } from './testing.js';

function launches(name: string) {
  const f = fixture(name);
  return launchesFromShellFile(f.path, f.text, f.baseDir);
}

function inline(text: string, env?: Map<string, { value: string }>) {
  return launchesFromShell(text, {
    source: { file: 'x.sh', kind: 'shell' },
    baseDir: '/work',
    locate: fileLocator('x.sh', text),
    unsetReason: 'is not set in x.sh',
    env,
  });
}

test('01: exports reach vLLM; the backslash-continued command is one launch with located flags', () => {
  const [l, ...rest] = launches('01-shell-vllm-serve-attn-backend-env.sh');
  assert.equal(rest.length, 0);
  assert.deepEqual(texts(l), [
    'vllm', 'serve', '~/ai/models/qwen3-8b-fp8', '--served-model-name', 'qwen3-8b-fp8', '--trust-remote-code',
    '--dtype', 'auto', '--quantization', 'fp8', '--gpu-memory-utilization', '0.6', '--max-model-len', '8192',
    '--max-num-batched-tokens', '8192', '--max-num-seqs', '1', '--port', '8000', '--tool-call-parser', 'hermes',
    '--kv-cache-dtype', 'fp8', '--disable-log-requests',
  ]);
  assert.deepEqual(envObject(l), { PYTORCH_CUDA_ALLOC_CONF: 'expandable_segments:True', VLLM_ATTENTION_BACKEND: 'FLASHINFER' });
  assert.equal(where(l, '--kv-cache-dtype'), '20:3');
  assert.equal(where(l, 'vllm'), '9:1');
  assert.deepEqual(l.env.get('VLLM_ATTENTION_BACKEND')?.at, { file: l.source.file, line: 5, column: 8 });
});

test('02: python -m api_server, file without trailing newline', () => {
  const [l] = launches('02-shell-api-server-kv-fp8.sh');
  assert.deepEqual(texts(l).slice(0, 5), ['python', '-m', 'vllm.entrypoints.openai.api_server', '--model', './model/checkpoint-5500_merged']);
  assert.deepEqual(texts(l).slice(-2), ['--kv-cache-dtype', 'fp8']);
  assert.equal(where(l, '--kv-cache-dtype'), '9:5');
  assert.equal(l.env.size, 0);
});

test('03: a single-quoted JSON value is one word; the trailing comment line is not part of the command', () => {
  const [l, ...rest] = launches('03-shell-speculative-config-json.sh');
  assert.equal(rest.length, 0);
  const i = texts(l).indexOf('--speculative-config');
  assert.deepEqual(JSON.parse(texts(l)[i + 1]), {
    model: './test-medusa/', num_speculative_tokens: 1, disable_logprobs: false, disable_log_stats: false,
    disable_by_batch_size: 30, method: 'medusa',
  });
  assert.equal(texts(l).length, i + 2);
  assert.equal(where(l, '--speculative-config'), '10:11');
});

test('04: only the one live line among commented-out launches', () => {
  const all = launches('04-shell-legacy-speculative-model.sh');
  assert.equal(all.length, 1);
  assert.deepEqual(texts(all[0]), [
    'vllm', 'serve', 'neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8', '--swap_space', '16', '--tensor-parallel-size', '2',
    '--disable-log-requests', '--enable-chunked-prefill', '--speculative_model',
    '/checkpoint/speculator/llama-3.1-70b/5-heads/synth-data/Feb-4/weighted_sum/', '--use-v2-block-manager',
    '--num-speculative-tokens', '3',
  ]);
  assert.equal(where(all[0], 'vllm'), '16:1');
});

test('05: VAR=value prefixes are the command env; a multi-line single-quoted JSON stays one word', () => {
  const [l] = launches('05-shell-env-prefix-multiline-json.sh');
  assert.deepEqual(envObject(l), {
    LMCACHE_LOCAL_CPU: 'False', LMCACHE_CONFIG_FILE: 'conf/lmcache_redis_config.yaml', LMCACHE_USE_EXPERIMENTAL: 'True',
  });
  const i = texts(l).indexOf('--kv-transfer-config');
  assert.deepEqual(JSON.parse(texts(l)[i + 1]), { kv_connector: 'LMCacheConnectorV1', kv_role: 'kv_both' });
  assert.equal(l.tokens[i + 1].at?.line, 10);
  assert.equal(texts(l)[texts(l).indexOf('--download-dir') + 1], '/opt/dlami/nvme/hf');
});

test('06: a comment inside a continuation ends the export; $MODEL expands; VLLM_LOGGING_LEVEL is not set', () => {
  const [l, ...rest] = launches('06-shell-comment-inside-continuation.sh');
  assert.equal(rest.length, 0);
  assert.deepEqual(texts(l), [
    'vllm', 'serve', 'Qwen/Qwen3-0.6B', '--port', '8000', '--tensor-parallel-size', '1', '--max-model-len', '32768',
    '--reasoning-parser', 'qwen3', '--language-model-only', '--kv-cache-dtype', 'fp8', '--max-num-batched-tokens', '8192',
    '--gpu-memory-utilization', '0.85',
  ]);
  assert.equal(where(l, 'vllm'), '5:8');
  assert.equal(where(l, 'Qwen/Qwen3-0.6B'), '5:19');
  assert.deepEqual(envObject(l), {
    MODEL: 'Qwen/Qwen3-0.6B',
    VLLM_WORKER_MULTIPROC_METHOD: 'spawn',
    PYTORCH_CUDA_ALLOC_CONF: 'expandable_segments:True,garbage_collection_threshold:0.8,max_split_size_mb:512',
  });
});

test('07: `\\ ` at a line end is an escaped space, so the next line is another command', () => {
  const [l, ...rest] = launches('07-shell-dotted-compilation-config.sh');
  assert.equal(rest.length, 0);
  const t = texts(l);
  assert.deepEqual(t.slice(-3), ['2048', '--attention-config.backend=FLASHINFER_MLA', ' ']);
  assert.ok(!t.some((x) => x.includes('custom_ops')));
  assert.equal(t[t.indexOf('--compilation_config.pass_config.fuse_attn_quant') + 1], 'true');
  assert.equal(where(l, '--attention-config.backend=FLASHINFER_MLA'), '12:64');
  assert.deepEqual(Object.keys(envObject(l)).sort(), [
    'NCCL_CUMEM_ENABLE', 'NCCL_NVLS_ENABLE', 'VLLM_FLASHINFER_MOE_BACKEND', 'VLLM_USE_FLASHINFER_MOE_FP4', 'VLLM_USE_NCCL_SYMM_MEM',
  ]);
});

test('08: a heredoc-written config.yaml is remembered, with unknown variables kept and noted', () => {
  const [l] = launches('08-shell-heredoc-config-yaml.sh');
  assert.deepEqual(texts(l), [
    'vllm', 'serve', '$MODEL', '--host', '0.0.0.0', '--port', '$PORT', '--config', 'config.yaml',
    '--gpu-memory-utilization', '0.9', '--tensor-parallel-size', '$TP', '--max-num-seqs', '512',
  ]);
  const file = l.files.get(`${l.baseDir}/config.yaml`);
  assert.ok(file);
  assert.match(file.text, /^kv-cache-dtype: fp8\n/);
  assert.match(file.text, /max-model-len: \$MAX_MODEL_LEN\n$/);
  assert.deepEqual(file.locate(1, 1), { file: l.source.file, line: 22, column: 1 });
  assert.deepEqual(file.locate(7, 16), { file: l.source.file, line: 28, column: 16 });
  assert.deepEqual(envObject(l), { TORCH_CUDA_ARCH_LIST: '10.0', PYTHONNOUSERSITE: '1', VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8: '1' });
  assert.ok(l.notes.some((n) => n.value.startsWith('MODEL is not set') && n.at?.line === 38));
});

test('10: nohup … & with only --config', () => {
  const [l] = launches('10-shell-serve-config-file.sh');
  assert.deepEqual(texts(l), ['vllm', 'serve', '--config', 'vllm_config.yaml']);
  assert.deepEqual(envObject(l), { CUDA_VISIBLE_DEVICES: '6,7', VLLM_ALLOW_RUNTIME_LORA_UPDATING: 'True' });
});

test('11: docker run: ${VAR:-default}s, the container command after the image, -e env only, the model mount', () => {
  const [l] = launches('11-docker-run-gemma4-nvfp4.sh');
  const t = texts(l);
  assert.deepEqual(t.slice(0, 5), ['vllm', 'serve', '/model', '--host', '0.0.0.0']);
  const after = (flag: string) => t[t.indexOf(flag) + 1];
  assert.equal(after('--port'), '30000');
  assert.equal(after('--gpu-memory-utilization'), '0.90');
  assert.equal(after('--kv-cache-dtype'), 'fp8');
  assert.equal(after('--attention-backend'), 'TRITON_ATTN');
  assert.equal(after('--default-chat-template-kwargs'), '{"enable_thinking":false}');
  assert.equal(after('--override-generation-config'), '{"max_new_tokens": null}');
  assert.deepEqual(envObject(l), { VLLM_USE_V2_MODEL_RUNNER: '1' });
  assert.equal(l.image?.value, 'ghcr.io/r0b0tlab/vllm-diffusiongemma-26b-nvfp4-sm121:spark-dgemma-patched');
  assert.deepEqual(l.mounts, [{ host: '/home/r0b0tdgx/models/llm/nvfp4/nvidia/diffusiongemma-26B-A4B-it-NVFP4', container: '/model' }]);
  assert.equal(where(l, '--kv-cache-dtype'), '26:5');
  assert.ok(l.notes.some((n) => n.value.startsWith('KV_CACHE_DTYPE is not set') && n.value.includes('"fp8"')));
});

test('variables: set later wins, unset removes, field splitting of unquoted values, "$@" left out', () => {
  const [l] = inline('ARGS="--dtype half  --seed 1"\nM=a\nM=b\nunset X\nvllm serve "$M" $ARGS "$@" "${M}-x"\n');
  assert.deepEqual(texts(l), ['vllm', 'serve', 'b', '--dtype', 'half', '--seed', '1', 'b-x']);
  assert.ok(l.notes.some((n) => n.value.includes('"$@"')));
  assert.equal(l.env.size, 0, 'plain assignments are not exported');
});

test('set -a exports assignments; declare -x exports; env -i starts empty', () => {
  const [a] = inline('set -a\nA=1\nset +a\nB=2\ndeclare -x C=3\nvllm serve m\n');
  assert.deepEqual(envObject(a), { A: '1', C: '3' });
  const [b] = inline('export A=1\nenv -i B=2 vllm serve m\n');
  assert.deepEqual(envObject(b), { B: '2' });
});

test('sh -c strings are parsed, with inner words located inside the string', () => {
  const src = "export K=v\nbash -lc 'cd /x && exec vllm serve m --port 1'\n";
  const [l] = inline(src);
  assert.deepEqual(texts(l), ['vllm', 'serve', 'm', '--port', '1']);
  assert.equal(where(l, '--port'), `2:${"bash -lc 'cd /x && exec vllm serve m ".length + 1}`);
  assert.deepEqual(envObject(l), { K: 'v' });
});

test('docker run with an image entrypoint, --entrypoint, and podman', () => {
  const [a] = inline('docker run --gpus all -e HF=1 -p 8000:8000 vllm/vllm-openai:v0.10.0 --model m --dtype auto\n');
  assert.deepEqual(texts(a), ['vllm', 'serve', '--model', 'm', '--dtype', 'auto']);
  assert.equal(a.image?.value, 'vllm/vllm-openai:v0.10.0');
  assert.ok(a.notes.some((n) => n.value.includes('entrypoint')));
  const [b] = inline('podman run --rm -it --entrypoint python3 img:1 -m vllm.entrypoints.openai.api_server --model m\n');
  assert.deepEqual(texts(b), ['python3', '-m', 'vllm.entrypoints.openai.api_server', '--model', 'm']);
  assert.deepEqual(inline('docker run ubuntu ls -la\n'), []);
});

test('if/then, exec, wrappers; echo and pip mention vLLM without launching it', () => {
  const ls = inline('if true; then\n  exec nohup uv run --frozen vllm serve a\nfi\necho vllm serve b\npip install vllm\n');
  assert.deepEqual(ls.map(texts), [['vllm', 'serve', 'a']]);
});

test('an environment given to the script (a container env) is exported and expandable', () => {
  const [l] = inline('vllm serve $MODEL_ID\n', new Map([['MODEL_ID', { value: 'org/m' }]]));
  assert.deepEqual(texts(l), ['vllm', 'serve', 'org/m']);
  assert.deepEqual(envObject(l), { MODEL_ID: 'org/m' });
});

test('syntax errors are UserErrors with the location of the opening quote', () => {
  assert.throws(
    () => inline("A=1\nvllm serve m --x '{\n"),
    (e: unknown) => e instanceof UserError && e.at?.line === 2 && e.at.column === 18 && /unterminated/.test(e.message),
  );
});

test('CRLF line endings: continuations and word ends work as with LF', () => {
  const [l] = inline('export A=1\r\nvllm serve m \\\r\n  --port 1\r\n');
  assert.deepEqual(texts(l), ['vllm', 'serve', 'm', '--port', '1']);
  assert.deepEqual(envObject(l), { A: '1' });
  assert.equal(where(l, '--port'), '3:3');
});

test('heredoc files: tee and >> append; a quoted delimiter keeps $ literal', () => {
  const [l] = inline("tee c.yaml <<EOF\na: $X\nEOF\ncat >> c.yaml <<'EOF'\nb: $Y\nEOF\nvllm serve m --config c.yaml\n");
  assert.equal(l.files.get('/work/c.yaml')?.text, 'a: $X\nb: $Y\n');
  assert.deepEqual(l.files.get('/work/c.yaml')?.locate(2, 1), { file: 'x.sh', line: 5, column: 1 });
});

test('a syntax error inside a heredoc body is a UserError located in the script, not a crash', () => {
  const text = 'cat > /tmp/cfg.yaml <<EOF\nmodel: m\nname: `unclosed\nEOF\nvllm serve m --config /tmp/cfg.yaml\n';
  assert.throws(
    () => launchesFromShellFile('serve.sh', text, '/tmp'),
    (e: unknown) => e instanceof UserError && e.code === 'E_SHELL_SYNTAX' && /unterminated `/.test(e.message) && e.at?.file === 'serve.sh' && e.at.line === 3,
  );
});
