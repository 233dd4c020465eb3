import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { isUserError, UserError } from '../core/errors.js';
import type { Deployment } from './deployment.js';
import { deploymentFromArgv, loadDeployments, loadLaunchFiles } from './load.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const fx = (name: string) => relative(root, fileURLToPath(new URL(`../../test/fixtures/launch-configs/${name}`, import.meta.url)));
const modelConfigs = fileURLToPath(new URL('../../test/fixtures/model-configs/', import.meta.url));
const opts = { cwd: root };

function load(...names: string[]): Deployment[] {
  return loadDeployments(names.map(fx), opts);
}

function argsOf(d: Deployment): Record<string, unknown> {
  return Object.fromEntries([...d.args].map(([k, v]) => [k, v.value]));
}

function envOf(d: Deployment): Record<string, string> {
  return Object.fromEntries([...d.env].map(([k, v]) => [k, v.value]));
}

function at(d: Deployment, dest: string): string {
  const a = d.args.get(dest)?.at;
  return a ? `${a.file.split('/').pop()}:${a.line}:${a.column}` : 'missing';
}

/**
 * The facts test/fixtures/launch-configs/SOURCES.md lists per file, as argparse dests
 * (`--swap_space` = swap_space; a flag with no value → true; `--no-x` → x: false).
 */
const EXPECTED: Record<string, { model: string; args: Record<string, unknown>; env: Record<string, string> }> = {
  '01-shell-vllm-serve-attn-backend-env.sh': {
    model: '~/ai/models/qwen3-8b-fp8',
    args: {
      served_model_name: ['qwen3-8b-fp8'], trust_remote_code: true, dtype: 'auto', quantization: 'fp8',
      gpu_memory_utilization: 0.6, max_model_len: 8192, max_num_batched_tokens: 8192, max_num_seqs: 1, port: 8000,
      tool_call_parser: 'hermes', kv_cache_dtype: 'fp8', disable_log_requests: true,
    },
    env: { VLLM_ATTENTION_BACKEND: 'FLASHINFER', PYTORCH_CUDA_ALLOC_CONF: 'expandable_segments:True' },
  },
  '02-shell-api-server-kv-fp8.sh': {
    model: './model/checkpoint-5500_merged',
    args: {
      served_model_name: ['pacer'], host: '0.0.0.0', port: 8001, dtype: 'float16', tensor_parallel_size: 2,
      max_model_len: 512, kv_cache_dtype: 'fp8',
    },
    env: {},
  },
  '03-shell-speculative-config-json.sh': {
    model: 'meta-llama/Meta-Llama-3.1-8B-Instruct',
    args: {
      served_model_name: ['meta-llama/Meta-Llama-3.1-8B-Instruct-fast'], trust_remote_code: true, disable_log_requests: true,
      tensor_parallel_size: 2, gpu_memory_utilization: 0.97, enable_prefix_caching: true, enable_auto_tool_choice: true,
      tool_call_parser: 'llama3_json',
      speculative_config: {
        model: './test-medusa/', num_speculative_tokens: 1, disable_logprobs: false, disable_log_stats: false,
        disable_by_batch_size: 30, method: 'medusa',
      },
    },
    env: {},
  },
  '04-shell-legacy-speculative-model.sh': {
    model: 'neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8',
    args: {
      swap_space: 16, tensor_parallel_size: 2, disable_log_requests: true, enable_chunked_prefill: true,
      speculative_model: '/checkpoint/speculator/llama-3.1-70b/5-heads/synth-data/Feb-4/weighted_sum/',
      use_v2_block_manager: true, num_speculative_tokens: 3,
    },
    env: {},
  },
  '05-shell-env-prefix-multiline-json.sh': {
    model: 'meta-llama/Llama-3.1-8B-Instruct',
    args: {
      quantization: 'bitsandbytes', max_model_len: 108000, gpu_memory_utilization: 0.9, download_dir: '/opt/dlami/nvme/hf',
      kv_transfer_config: { kv_connector: 'LMCacheConnectorV1', kv_role: 'kv_both' },
    },
    env: { LMCACHE_LOCAL_CPU: 'False', LMCACHE_CONFIG_FILE: 'conf/lmcache_redis_config.yaml', LMCACHE_USE_EXPERIMENTAL: 'True' },
  },
  '06-shell-comment-inside-continuation.sh': {
    model: 'Qwen/Qwen3-0.6B',
    args: {
      port: 8000, tensor_parallel_size: 1, max_model_len: 32768, reasoning_parser: 'qwen3', language_model_only: true,
      kv_cache_dtype: 'fp8', max_num_batched_tokens: 8192, gpu_memory_utilization: 0.85,
    },
    env: {
      MODEL: 'Qwen/Qwen3-0.6B', VLLM_WORKER_MULTIPROC_METHOD: 'spawn',
      PYTORCH_CUDA_ALLOC_CONF: 'expandable_segments:True,garbage_collection_threshold:0.8,max_split_size_mb:512',
    },
  },
  '07-shell-dotted-compilation-config.sh': {
    model: '/tmp/nvidia-DeepSeek-R1-FP4-v2',
    args: {
      kv_cache_dtype: 'fp8', tensor_parallel_size: 1, pipeline_parallel_size: 1, data_parallel_size: 4,
      enable_expert_parallel: true, swap_space: 16, max_num_seqs: 1024, trust_remote_code: true, max_model_len: 2176,
      gpu_memory_utilization: 0.9, max_num_batched_tokens: 8192, enable_prefix_caching: false, async_scheduling: true,
      compilation_config: { pass_config: { fuse_attn_quant: true, fuse_allreduce_rms: true }, max_cudagraph_capture_size: 2048 },
      attention_config: { backend: 'FLASHINFER_MLA' },
    },
    env: {
      VLLM_USE_NCCL_SYMM_MEM: '1', NCCL_NVLS_ENABLE: '1', NCCL_CUMEM_ENABLE: '1', VLLM_FLASHINFER_MOE_BACKEND: 'latency',
      VLLM_USE_FLASHINFER_MOE_FP4: '1',
    },
  },
  '08-shell-heredoc-config-yaml.sh': {
    model: '$MODEL',
    args: {
      host: '0.0.0.0', port: '$PORT', gpu_memory_utilization: 0.9, tensor_parallel_size: '$TP', max_num_seqs: 512,
      kv_cache_dtype: 'fp8', compilation_config: { pass_config: { fuse_allreduce_rms: true, eliminate_noops: true } },
      async_scheduling: true, enable_prefix_caching: false, max_cudagraph_capture_size: 2048, max_num_batched_tokens: 8192,
      max_model_len: '$MAX_MODEL_LEN',
    },
    env: { TORCH_CUDA_ARCH_LIST: '10.0', PYTHONNOUSERSITE: '1', VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8: '1' },
  },
  '09-vllm-config-file.yaml': {
    model: '/data/lyl/models/qwen2.5-7B',
    args: {
      host: '0.0.0.0', port: 8000, uvicorn_log_level: 'info', dtype: 'auto', quantization: 'bitsandbytes',
      enforce_eager: true, enable_lora: true, tensor_parallel_size: 2, gpu_memory_utilization: 0.6,
    },
    env: {},
  },
  'pair-09-10/start_vllm_server.sh': {
    model: '/data/lyl/models/qwen2.5-7B',
    args: {
      host: '0.0.0.0', port: 8000, uvicorn_log_level: 'info', dtype: 'auto', quantization: 'bitsandbytes',
      enforce_eager: true, enable_lora: true, tensor_parallel_size: 2, gpu_memory_utilization: 0.6,
    },
    env: { CUDA_VISIBLE_DEVICES: '6,7', VLLM_ALLOW_RUNTIME_LORA_UPDATING: 'True' },
  },
  '11-docker-run-gemma4-nvfp4.sh': {
    model: '/model',
    args: {
      host: '0.0.0.0', port: 30000, trust_remote_code: true, gpu_memory_utilization: 0.9, max_model_len: 65536,
      max_num_seqs: 16, kv_cache_dtype: 'fp8', load_format: 'fastsafetensors', attention_backend: 'TRITON_ATTN',
      enable_prefix_caching: true, diffusion_config: { canvas_length: 256 }, enable_auto_tool_choice: true,
      tool_call_parser: 'gemma4', reasoning_parser: 'gemma4', override_generation_config: { max_new_tokens: null },
      chat_template: 'fixed_chat_template.jinja', default_chat_template_kwargs: { enable_thinking: false },
    },
    env: { VLLM_USE_V2_MODEL_RUNNER: '1' },
  },
  '12-docker-compose-exec-form.yaml': {
    model: 'RedHatAI/Qwen3-VL-235B-A22B-Instruct-NVFP4',
    args: {
      host: '0.0.0.0', port: 8000, enable_auto_tool_choice: true, tool_call_parser: 'hermes', enable_chunked_prefill: true,
      enable_prefix_caching: true, max_model_len: 64000, dtype: 'auto', tensor_parallel_size: 2, swap_space: 32,
      gpu_memory_utilization: 0.95, max_num_seqs: 16, served_model_name: ['qwen3-vl-235b-a22b-instruct'],
      limit_mm_per_prompt: { image: 2, video: 0 }, attention_backend: 'FLASHINFER', reasoning_parser: 'deepseek_r1',
      structured_outputs_config: { enable_in_reasoning: 'True' }, default_chat_template_kwargs: { thinking: true },
      generation_config: 'auto', override_generation_config: { max_new_tokens: 8000 }, kv_cache_dtype: 'fp8',
      max_num_batched_tokens: 16384, mm_encoder_tp_mode: 'data',
    },
    env: {
      VLLM_USE_FLASHINFER_MOE_FP16: '1', VLLM_RPC_TIMEOUT: '1000000', HF_HOME: '/hf_home', CUDA_DEVICE_ORDER: 'PCI_BUS_ID',
      NCCL_IB_DISABLE: '1', NCCL_P2P_LEVEL: 'NVL', LMCACHE_USE_EXPERIMENTAL: 'True', LMCACHE_LOG_LEVEL: 'INFO',
      LMCACHE_LOCAL_CPU: 'True', LMCACHE_MAX_LOCAL_CPU_SIZE: '64', PYTHONHASHSEED: '123', PROMETHEUS_MULTIPROC_DIR: '/tmp',
      OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '4', MKL_NUM_THREADS: '1',
    },
  },
  '13-k8s-deployment-gke-gemma3.yaml': {
    model: 'google/gemma-3-27b-it',
    args: {
      tensor_parallel_size: 1, host: '0.0.0.0', port: 8000, swap_space: 16, gpu_memory_utilization: 0.95,
      max_model_len: 32768, max_num_seqs: 4,
    },
    env: { MODEL_ID: 'google/gemma-3-27b-it', LD_LIBRARY_PATH: '${LD_LIBRARY_PATH}:/usr/local/nvidia/lib64' },
  },
  '14-k8s-deployment-flow-args.yaml': {
    model: 'mistralai/Mistral-7B-Instruct-v0.2',
    args: { download_dir: '/models-cache', dtype: 'float16', max_model_len: 6144 },
    env: { HUGGING_FACE_HUB_TOKEN: '' },
  },
  '15-lws-leader-sh-c.yaml': {
    model: 'meta-llama/Llama-3.1-405B-Instruct',
    args: { port: 8080, tensor_parallel_size: 8, pipeline_parallel_size: 2 },
    env: { HF_TOKEN: '$HF_TOKEN' },
  },
  '16-helm-production-stack-v100-tp2.yaml': {
    model: 'Qwen/Qwen2.5-7B-Instruct',
    args: {
      host: '0.0.0.0', port: 8000, enable_prefix_caching: false, max_model_len: 8192, dtype: 'half', tensor_parallel_size: 2,
      gpu_memory_utilization: 0.9, enforce_eager: true,
    },
    env: { VLLM_USE_V1: '0', VLLM_ENABLE_CUDA_COMPATIBILITY: '1', PYTHONHASHSEED: '123', HF_HOME: '/data' },
  },
  '17-helm-production-stack-lmcache.yaml': {
    model: 'meta-llama/Llama-3.1-8B-Instruct',
    args: {
      host: '0.0.0.0', port: 8000, enable_prefix_caching: true, max_model_len: 4096, dtype: 'bfloat16',
      gpu_memory_utilization: 0.8, kv_transfer_config: { kv_connector: 'LMCacheConnectorV1', kv_role: 'kv_both' },
    },
    env: {
      PYTHONHASHSEED: '123', HF_HOME: '/data', PROMETHEUS_MULTIPROC_DIR: '/tmp', LMCACHE_USE_EXPERIMENTAL: 'True',
      VLLM_RPC_TIMEOUT: '1000000', LMCACHE_LOG_LEVEL: 'INFO', LMCACHE_LOCAL_CPU: 'True', LMCACHE_MAX_LOCAL_CPU_SIZE: '20',
      LMCACHE_REMOTE_URL: 'lm://<release>-cache-server-service:81', LMCACHE_REMOTE_SERDE: 'naive',
    },
  },
  '18-kserve-servingruntime-template.yaml': {
    model: '/mnt/models',
    args: { port: 8080, served_model_name: ['{{.Name}}'] },
    env: { HF_HOME: '/tmp/hf_home' },
  },
};

for (const [name, expected] of Object.entries(EXPECTED)) {
  test(`${name} → the facts in SOURCES.md`, () => {
    const [d, ...rest] = load(name);
    assert.equal(rest.length, 0);
    assert.equal(d.model?.value, expected.model);
    const args = argsOf(d);
    for (const [dest, value] of Object.entries(expected.args)) assert.deepEqual(args[dest], value, dest);
    assert.deepEqual(envOf(d), expected.env);
  });
}

test('19 + 20: served as facebook/opt-125m (storageUri), --served-model-name from the InferenceService name', () => {
  const [d, ...rest] = load('19-kserve-servingruntime.yaml', '20-kserve-inferenceservice.yaml');
  assert.equal(rest.length, 0);
  assert.equal(d.model?.value, 'facebook/opt-125m');
  assert.deepEqual(argsOf(d), { port: 8080, served_model_name: ['opt-125m-no-cache'], model: '/mnt/models' });
  assert.deepEqual(envOf(d), {
    VLLM_WORKER_MULTIPROC_METHOD: 'spawn', VLLM_CONFIG_ROOT: '/tmp', VLLM_CACHE_ROOT: '/tmp/vllm', LMCACHE_USE_EXPERIMENTAL: 'True',
    HF_HOME: '/tmp/hf', HOME: '/tmp',
  });
  assert.equal(d.versions.vllm?.value, '0.28.0', 'from the official image tag vllm/vllm-openai:v0.28.0');
});

test('locations of key flags point at what the user wrote', () => {
  assert.equal(at(load('01-shell-vllm-serve-attn-backend-env.sh')[0], 'kv_cache_dtype'), '01-shell-vllm-serve-attn-backend-env.sh:20:3');
  assert.equal(at(load('07-shell-dotted-compilation-config.sh')[0], 'attention_config'), '07-shell-dotted-compilation-config.sh:12:64');
  // a config.yaml written by a heredoc: its keys are located on the heredoc's lines in the script
  const heredoc = load('08-shell-heredoc-config-yaml.sh')[0];
  assert.equal(at(heredoc, 'kv_cache_dtype'), '08-shell-heredoc-config-yaml.sh:22:1');
  assert.equal(at(heredoc, 'max_model_len'), '08-shell-heredoc-config-yaml.sh:28:1');
  assert.equal(at(load('09-vllm-config-file.yaml')[0], 'enforce_eager'), '09-vllm-config-file.yaml:9:1');
  assert.equal(at(load('pair-09-10/start_vllm_server.sh')[0], 'tensor_parallel_size'), 'vllm_config.yaml:12:1');
  assert.equal(at(load('12-docker-compose-exec-form.yaml')[0], 'kv_cache_dtype'), '12-docker-compose-exec-form.yaml:95:9');
  assert.equal(at(load('13-k8s-deployment-gke-gemma3.yaml')[0], 'max_model_len'), '13-k8s-deployment-gke-gemma3.yaml:55:11');
  assert.equal(at(load('15-lws-leader-sh-c.yaml')[0], 'tensor_parallel_size'), '15-lws-leader-sh-c.yaml:25:119');
  assert.equal(at(load('16-helm-production-stack-v100-tp2.yaml')[0], 'enforce_eager'), '16-helm-production-stack-v100-tp2.yaml:51:11');
  const d = load('01-shell-vllm-serve-attn-backend-env.sh')[0];
  assert.equal(d.at?.file, fx('01-shell-vllm-serve-attn-backend-env.sh'), 'paths as given, relative to cwd');
  assert.equal(d.at?.line, 9);
});

test('GPU: a label in the manifest, the --gpu option winning over it, unknown and conflicting labels', () => {
  const [gke] = load('13-k8s-deployment-gke-gemma3.yaml');
  assert.equal(gke.gpu?.value.sm, 80);
  assert.equal(gke.gpu?.at?.line, 75);
  const [forced] = loadDeployments([fx('13-k8s-deployment-gke-gemma3.yaml')], { ...opts, gpu: 'NVIDIA B200' });
  assert.equal(forced.gpu?.value.sm, 100);
  const dir = scratch();
  writeFileSync(join(dir, 'two.yaml'), podWithGpuLabels(['NVIDIA-H100-80GB-HBM3', 'NVIDIA-B200']));
  writeFileSync(join(dir, 'odd.yaml'), podWithGpuLabels(['Quantum-Abacus-9000']));
  const [two] = loadDeployments([join(dir, 'two.yaml')], opts);
  assert.equal(two.gpu, undefined);
  assert.ok(two.notes.some((n) => n.value.includes('different architectures')));
  const [odd] = loadDeployments([join(dir, 'odd.yaml')], opts);
  assert.equal(odd.gpu, undefined);
  assert.ok(odd.notes.some((n) => n.value.includes('Quantum-Abacus-9000')));
});

test('versions: CLI options win; an official image tag is used otherwise; a malformed version is a UserError', () => {
  const [d] = loadDeployments([fx('13-k8s-deployment-gke-gemma3.yaml')], { ...opts, vllmVersion: '0.23.1rc1.dev843+g04adc8843', flashinferVersion: '0.6.16' });
  assert.deepEqual(d.versions, { vllm: { value: '0.23.1rc1.dev843+g04adc8843' }, flashinfer: { value: '0.6.16' } });
  assert.equal(load('13-k8s-deployment-gke-gemma3.yaml')[0].versions.vllm?.value, '0.10.0');
  assert.equal(load('17-helm-production-stack-lmcache.yaml')[0].versions.vllm, undefined, 'latest-nightly names no version');
  assert.throws(() => loadDeployments([fx('01-shell-vllm-serve-attn-backend-env.sh')], { ...opts, vllmVersion: 'banana' }), isUserErrorCode('E_USAGE'));
});

test('model facts: --model-config, a local model directory, and one mounted into docker', () => {
  const [explicit] = loadDeployments([fx('13-k8s-deployment-gke-gemma3.yaml')], { ...opts, modelConfig: join(modelConfigs, 'gemma-3-27b-it/config.json') });
  assert.ok(explicit.modelFacts?.layers.includes('sliding'));
  const dir = scratch();
  cpSync(join(modelConfigs, 'gemma-4-31b-it-nvfp4'), join(dir, 'ckpt'), { recursive: true });
  writeFileSync(join(dir, 'local.sh'), 'vllm serve ./ckpt --kv-cache-dtype auto\n');
  writeFileSync(join(dir, 'docker.sh'), `docker run -v ${join(dir, 'ckpt')}:/model:ro vllm/vllm-openai:v0.20.0 --model /model\n`);
  for (const f of ['local.sh', 'docker.sh']) {
    const [d] = loadDeployments([join(dir, f)], opts);
    assert.equal(d.modelFacts?.kvDtypeFromCheckpoint, 'fp8_e4m3', f);
    assert.ok(d.notes.some((n) => n.value.includes('model facts read from')), f);
  }
  writeFileSync(join(dir, 'hub.sh'), 'vllm serve org/not-here\n');
  assert.equal(loadDeployments([join(dir, 'hub.sh')], opts)[0].modelFacts, undefined);
});

test('input errors: no launch anywhere, a missing file, a directory, bad YAML — UserErrors with a hint', () => {
  const dir = scratch();
  writeFileSync(join(dir, 'none.sh'), 'echo hi\n');
  writeFileSync(join(dir, 'svc.yaml'), 'apiVersion: v1\nkind: Service\nmetadata: {name: s}\n');
  assert.throws(() => loadDeployments([join(dir, 'none.sh'), join(dir, 'svc.yaml')], opts), (e: unknown) =>
    e instanceof UserError && e.code === 'E_NO_LAUNCH' && e.message.includes('none.sh') && e.message.includes('svc.yaml') && !!e.hint);
  assert.throws(() => loadDeployments([join(dir, 'missing.sh')], opts), isUserErrorCode('E_INPUT'));
  assert.throws(() => loadDeployments([dir], opts), isUserErrorCode('E_INPUT'));
  writeFileSync(join(dir, 'bad.yaml'), 'a: [1\n');
  assert.throws(() => loadDeployments([join(dir, 'bad.yaml')], opts), isUserErrorCode('E_YAML_SYNTAX'));
  // a file without a launch next to one with a launch is reported, not fatal
  const r = loadLaunchFiles([join(dir, 'none.sh'), fx('02-shell-api-server-kv-fp8.sh')], opts);
  assert.equal(r.deployments.length, 1);
  assert.deepEqual(r.filesWithoutLaunch, [join(dir, 'none.sh')]);
  // an unknown flag in a file is a flag problem located there (lint's FL000), not an input error;
  // --allow-unknown-flags turns it into a note
  writeFileSync(join(dir, 'unknown.sh'), 'vllm serve m \\\n  --frobnicate 3\n');
  const [strict] = loadDeployments([join(dir, 'unknown.sh')], opts);
  assert.deepEqual(strict.flagProblems?.map((p) => [p.kind, p.option, p.at?.line, p.at?.column]), [['unknown', '--frobnicate', 2, 3]]);
  const [lenient] = loadDeployments([join(dir, 'unknown.sh')], { ...opts, allowUnknownFlags: true });
  assert.ok(lenient.notes.some((n) => n.value.includes('--frobnicate') && n.at?.line === 2));
  // 10 without its config file beside it: the --config file is missing, located at the flag's value
  assert.throws(() => load('10-shell-serve-config-file.sh'), (e: unknown) => e instanceof UserError && e.at?.line === 11 && e.at.column === 27);
});

test('argv: plain, through env/docker/sh -c wrappers, with the process env; unknown flags are flag problems; non-vLLM commands are errors', () => {
  const plain = deploymentFromArgv(['vllm', 'serve', 'org/m', '--kv-cache-dtype', 'fp8'], opts);
  assert.equal(plain.model?.value, 'org/m');
  assert.deepEqual(plain.args.get('kv_cache_dtype'), { value: 'fp8', at: { file: '<argv>', line: 1, column: 4 } });
  assert.equal(plain.source.kind, 'argv');
  const wrapped = deploymentFromArgv(['env', 'VLLM_USE_TRTLLM_ATTENTION=1', 'vllm', 'serve', 'm'], { ...opts, env: { HOME: '/h' } });
  assert.deepEqual(envOf(wrapped), { HOME: '/h', VLLM_USE_TRTLLM_ATTENTION: '1' });
  const docker = deploymentFromArgv(['docker', 'run', '-e', 'A=1', 'vllm/vllm-openai:v0.9.2', '--model', 'm'], { ...opts, env: { HOME: '/h' } });
  assert.deepEqual(envOf(docker), { A: '1' });
  assert.equal(docker.versions.vllm?.value, '0.9.2');
  const shc = deploymentFromArgv(['sh', '-c', 'vllm serve $M --dtype half'], { ...opts, env: { M: 'org/x' } });
  assert.equal(shc.model?.value, 'org/x');
  assert.equal(deploymentFromArgv(['vllm', 'serve', 'm', '--no-such-flag', '1'], opts).flagProblems?.[0]?.option, '--no-such-flag');
  const lenient = deploymentFromArgv(['vllm', 'serve', 'm', '--no-such-flag', '1'], { ...opts, allowUnknownFlags: true });
  assert.ok(lenient.notes.some((n) => n.value.includes('--no-such-flag')));
  assert.throws(() => deploymentFromArgv(['ls', '-la'], opts), isUserErrorCode('E_NOT_VLLM'));
});

test('the seed-b200 examples give the same launch facts in every form', () => {
  const files = ['serve.sh', 'k8s-deployment-exec.yaml', 'k8s-deployment-sh-c.yaml', 'production-stack-values.yaml', 'compose.yaml'];
  const ds = loadDeployments(files.map((f) => `examples/seed-b200/${f}`), opts);
  assert.equal(ds.length, files.length);
  const key = (d: Deployment) => {
    const a = argsOf(d);
    return [d.model?.value, a.attention_backend, a.kv_cache_dtype, a.attention_config, a.speculative_config];
  };
  for (const d of ds.slice(1)) assert.deepEqual(key(d), key(ds[0]), d.source.file);
});

test('property: launch files with random flags and values → Deployments or a UserError, never a crash', () => {
  const dir = scratch();
  const word = fc.constantFrom(
    '--kv-cache-dtype', 'fp8', '--speculative-config', "'{\"method\": \"ngram\", \"num_speculative_tokens\": 5}'", "'{bad'",
    '--config', 'c.yaml', '-tp', '2', '--attention-config.backend=FLASHINFER', '-O3', '$X', '${Y:-1}', '--no-enable-prefix-caching',
    '--max-model-len', '8k', '--model', 'm', '"', '\\\n', '--frobnicate', '--gpu-memory-utilization', 'x',
  );
  fc.assert(
    fc.property(fc.array(word, { maxLength: 12 }), fc.boolean(), (words, heredoc) => {
      const config = heredoc ? 'cat > c.yaml <<EOF\nkv-cache-dtype: fp8\nmax-model-len: $Z\nEOF\n' : '';
      writeFileSync(join(dir, 'f.sh'), `${config}vllm serve org/m ${words.join(' ')}\n`);
      try {
        loadDeployments([join(dir, 'f.sh')], opts);
      } catch (e) {
        if (!isUserError(e)) throw e;
      }
    }),
    { numRuns: 300 },
  );
});

// ---------------------------------------------------------------------------------------------

const scratchDirs: string[] = [];
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-load-'));
  scratchDirs.push(dir);
  mkdirSync(dir, { recursive: true });
  return dir;
}
after(() => {
  for (const d of scratchDirs) rmSync(d, { recursive: true, force: true });
});

function isUserErrorCode(code: string) {
  return (e: unknown) => e instanceof UserError && e.code === code && !!e.hint;
}

function podWithGpuLabels(values: string[]): string {
  return `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions:
              - key: nvidia.com/gpu.product
                operator: In
                values: [${values.join(', ')}]
  containers:
    - name: v
      image: vllm/vllm-openai:latest
      args: [org/m]
`;
}
