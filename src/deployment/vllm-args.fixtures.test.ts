/**
 * The argv of the launch-config fixtures (test/fixtures/launch-configs), as the sources hand it
 * over, parse to the values test/fixtures/launch-configs/SOURCES.md lists. The argv arrays are
 * written out here (the sources' own tests cover extracting them from the files).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tokensFromArgv } from './argv-token.js';
import { parseVllmArgs, parseVllmCommand, type VllmParse } from './vllm-args.js';

const cmd = (argv: string[]): VllmParse => parseVllmCommand(tokensFromArgv(argv), { baseDir: '.' });
const values = (r: VllmParse): Record<string, unknown> =>
  Object.fromEntries([...r.args].map(([k, v]) => [k, v.value]));
const noteText = (r: VllmParse): string => r.notes.map((n) => n.value).join('\n');

test('01: vllm serve with fp8 KV and the deprecated --disable-log-requests', () => {
  const r = cmd([
    'vllm',
    'serve',
    '~/ai/models/qwen3-8b-fp8',
    '--served-model-name',
    'qwen3-8b-fp8',
    '--trust-remote-code',
    '--dtype',
    'auto',
    '--quantization',
    'fp8',
    '--gpu-memory-utilization',
    '0.6',
    '--max-model-len',
    '8192',
    '--max-num-batched-tokens',
    '8192',
    '--max-num-seqs',
    '1',
    '--port',
    '8000',
    '--tool-call-parser',
    'hermes',
    '--kv-cache-dtype',
    'fp8',
    '--disable-log-requests',
  ]);
  assert.deepEqual(values(r), {
    model: '~/ai/models/qwen3-8b-fp8',
    served_model_name: ['qwen3-8b-fp8'],
    trust_remote_code: true,
    dtype: 'auto',
    quantization: 'fp8',
    gpu_memory_utilization: 0.6,
    max_model_len: 8192,
    max_num_batched_tokens: 8192,
    max_num_seqs: 1,
    port: 8000,
    tool_call_parser: 'hermes',
    kv_cache_dtype: 'fp8',
    disable_log_requests: true,
  });
  assert.match(noteText(r), /--disable-log-requests: not a flag of vLLM 0\.27\.1; the last release faultline has it in is 0\.16\.0/);
});

test('04: legacy speculative flags with underscores', () => {
  const r = cmd([
    'vllm',
    'serve',
    'neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8',
    '--swap_space',
    '16',
    '--tensor-parallel-size',
    '2',
    '--disable-log-requests',
    '--enable-chunked-prefill',
    '--speculative_model',
    '/checkpoint/speculator/llama-3.1-70b/5-heads/synth-data/Feb-4/weighted_sum/',
    '--use-v2-block-manager',
    '--num-speculative-tokens',
    '3',
  ]);
  assert.equal(r.args.get('swap_space')?.value, 16);
  assert.deepEqual(r.args.get('speculative_config')?.value, {
    model: '/checkpoint/speculator/llama-3.1-70b/5-heads/synth-data/Feb-4/weighted_sum/',
    num_speculative_tokens: 3,
  });
});

test('05: multi-line JSON value', () => {
  const r = cmd([
    'vllm',
    'serve',
    'meta-llama/Llama-3.1-8B-Instruct',
    '--quantization',
    'bitsandbytes',
    '--max-model-len',
    '108000',
    '--gpu-memory-utilization',
    '0.9',
    '--download-dir',
    '/opt/dlami/nvme/hf',
    '--kv-transfer-config',
    '{"kv_connector":"LMCacheConnectorV1",\n      "kv_role":"kv_both"\n    }',
  ]);
  assert.deepEqual(r.args.get('kv_transfer_config')?.value, {
    kv_connector: 'LMCacheConnectorV1',
    kv_role: 'kv_both',
  });
});

test('07: dotted compilation config, dotted attention backend, and the stray " " argument', () => {
  const r = cmd([
    'vllm',
    'serve',
    '/tmp/nvidia-DeepSeek-R1-FP4-v2',
    '--kv-cache-dtype',
    'fp8',
    '--tensor-parallel-size',
    '1',
    '--pipeline-parallel-size',
    '1',
    '--data-parallel-size',
    '4',
    '--enable-expert-parallel',
    '--swap-space',
    '16',
    '--max-num-seqs',
    '1024',
    '--trust-remote-code',
    '--max-model-len',
    '2176',
    '--gpu-memory-utilization',
    '0.9',
    '--max-num-batched-tokens',
    '8192',
    '--no-enable-prefix-caching',
    '--async-scheduling',
    '--compilation_config.pass_config.fuse_attn_quant',
    'true',
    '--compilation_config.pass_config.fuse_allreduce_rms',
    'true',
    '--compilation_config.max_cudagraph_capture_size',
    '2048',
    '--attention-config.backend=FLASHINFER_MLA',
    ' ',
  ]);
  assert.deepEqual(r.args.get('compilation_config')?.value, {
    pass_config: { fuse_attn_quant: true, fuse_allreduce_rms: true },
    max_cudagraph_capture_size: 2048,
  });
  assert.deepEqual(r.args.get('attention_config')?.value, { backend: 'FLASHINFER_MLA' });
  assert.equal(r.args.get('enable_prefix_caching')?.value, false);
  assert.equal(r.args.get('async_scheduling')?.value, true);
  assert.match(noteText(r), /stray positional argument " "/);
});

test('11: explicit TRITON_ATTN, JSON flags, and --diffusion-config (upstream since 0.27)', () => {
  const r = cmd([
    'vllm',
    'serve',
    '/model',
    '--host',
    '0.0.0.0',
    '--port',
    '30000',
    '--trust-remote-code',
    '--gpu-memory-utilization',
    '0.90',
    '--max-model-len',
    '65536',
    '--max-num-seqs',
    '16',
    '--kv-cache-dtype',
    'fp8',
    '--load-format',
    'fastsafetensors',
    '--attention-backend',
    'TRITON_ATTN',
    '--enable-prefix-caching',
    '--diffusion-config',
    '{"canvas_length":256}',
    '--enable-auto-tool-choice',
    '--tool-call-parser',
    'gemma4',
    '--reasoning-parser',
    'gemma4',
    '--override-generation-config',
    '{"max_new_tokens": null}',
    '--chat-template',
    'fixed_chat_template.jinja',
    '--default-chat-template-kwargs',
    '{"enable_thinking":false}',
  ]);
  assert.equal(r.args.get('attention_backend')?.value, 'TRITON_ATTN');
  assert.deepEqual(r.args.get('override_generation_config')?.value, { max_new_tokens: null });
  assert.deepEqual(r.args.get('default_chat_template_kwargs')?.value, { enable_thinking: false });
  // --diffusion-config was fork-only when this file was written; vLLM 0.27 has it.
  assert.deepEqual(r.flagProblems, []);
});

test('12: compose exec-form tail after `vllm serve`, with dotted multimodal limits', () => {
  const r = parseVllmArgs(
    tokensFromArgv([
      '--model',
      'RedHatAI/Qwen3-VL-235B-A22B-Instruct-NVFP4',
      '--host',
      '0.0.0.0',
      '--port',
      '8000',
      '--enable-auto-tool-choice',
      '--tool-call-parser',
      'hermes',
      '--enable-chunked-prefill',
      '--enable-prefix-caching',
      '--max-model-len',
      '64000',
      '--dtype',
      'auto',
      '--tensor-parallel-size',
      '2',
      '--swap-space',
      '32',
      '--gpu-memory-utilization',
      '0.95',
      '--max-num-seqs',
      '16',
      '--served-model-name',
      'qwen3-vl-235b-a22b-instruct',
      '--limit-mm-per-prompt.image',
      '2',
      '--limit-mm-per-prompt.video',
      '0',
      '--attention-backend',
      'FLASHINFER',
      '--reasoning-parser',
      'deepseek_r1',
      '--structured-outputs-config.enable_in_reasoning',
      'True',
      '--default-chat-template-kwargs',
      '{"thinking": true}',
      '--generation-config',
      'auto',
      '--override-generation-config',
      '{"max_new_tokens": 8000}',
      '--kv-cache-dtype',
      'fp8',
      '--max-num-batched-tokens',
      '16384',
      '--mm-encoder-tp-mode',
      'data',
    ]),
    { baseDir: '.' },
  );
  assert.equal(r.model?.value, 'RedHatAI/Qwen3-VL-235B-A22B-Instruct-NVFP4');
  assert.deepEqual(r.args.get('limit_mm_per_prompt')?.value, { image: 2, video: 0 });
  assert.deepEqual(r.args.get('structured_outputs_config')?.value, { enable_in_reasoning: 'True' });
  assert.equal(r.args.get('attention_backend')?.value, 'FLASHINFER');
  assert.equal(r.args.get('mm_encoder_tp_mode')?.value, 'data');
  // --swap-space left vLLM after 0.17: with no version given, read with a note, not a problem.
  assert.deepEqual(r.notes.map((n) => n.value), ['--swap-space: not a flag of vLLM 0.27.1; the last release faultline has it in is 0.17.1']);
  assert.deepEqual(r.flagProblems, []);
});

test('13, 15, 18: api_server launches with --flag=value and underscore spellings', () => {
  const k8s = cmd([
    'python3',
    '-m',
    'vllm.entrypoints.openai.api_server',
    '--model=google/gemma-3-27b-it',
    '--tensor-parallel-size=1',
    '--host=0.0.0.0',
    '--port=8000',
    '--swap-space=16',
    '--gpu-memory-utilization=0.95',
    '--max-model-len=32768',
    '--max-num-seqs=4',
  ]);
  assert.deepEqual(values(k8s), {
    model: 'google/gemma-3-27b-it',
    tensor_parallel_size: 1,
    host: '0.0.0.0',
    port: 8000,
    swap_space: 16,
    gpu_memory_utilization: 0.95,
    max_model_len: 32768,
    max_num_seqs: 4,
  });
  const lws = cmd([
    'python3',
    '-m',
    'vllm.entrypoints.openai.api_server',
    '--port',
    '8080',
    '--model',
    'meta-llama/Llama-3.1-405B-Instruct',
    '--tensor-parallel-size',
    '8',
    '--pipeline_parallel_size',
    '2',
  ]);
  assert.equal(lws.args.get('pipeline_parallel_size')?.value, 2);
  const kserve = cmd([
    'python',
    '-m',
    'vllm.entrypoints.openai.api_server',
    '--port=8080',
    '--model=/mnt/models',
    '--served-model-name={{.Name}}',
  ]);
  assert.deepEqual(kserve.args.get('served_model_name')?.value, ['{{.Name}}']);
  assert.equal(kserve.model?.value, '/mnt/models');
});

test('16, 17: production-stack renderings', () => {
  const v100 = cmd([
    'vllm',
    'serve',
    'Qwen/Qwen2.5-7B-Instruct',
    '--host',
    '0.0.0.0',
    '--port',
    '8000',
    '--no-enable-prefix-caching',
    '--max-model-len',
    '8192',
    '--dtype',
    'half',
    '--tensor-parallel-size',
    '2',
    '--gpu_memory_utilization',
    '0.9',
    '--enforce-eager',
  ]);
  assert.deepEqual(values(v100), {
    model: 'Qwen/Qwen2.5-7B-Instruct',
    host: '0.0.0.0',
    port: 8000,
    enable_prefix_caching: false,
    max_model_len: 8192,
    dtype: 'half',
    tensor_parallel_size: 2,
    gpu_memory_utilization: 0.9,
    enforce_eager: true,
  });
  const lmcache = cmd([
    '/opt/venv/bin/vllm',
    'serve',
    'meta-llama/Llama-3.1-8B-Instruct',
    '--host',
    '0.0.0.0',
    '--port',
    '8000',
    '--enable-prefix-caching',
    '--max-model-len',
    '4096',
    '--dtype',
    'bfloat16',
    '--gpu-memory-utilization',
    '0.8',
    '--kv-transfer-config',
    '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}',
  ]);
  assert.deepEqual(lmcache.args.get('kv_transfer_config')?.value, {
    kv_connector: 'LMCacheConnectorV1',
    kv_role: 'kv_both',
  });
});
